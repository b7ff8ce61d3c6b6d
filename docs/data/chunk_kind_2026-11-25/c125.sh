#!/bin/bash
# c125 (8c472db: target chunks of one kind): the scenes' steps and frames;
# every scene to t = 10 under MPS (lr6)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
: > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
  prof "big" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
  prof "big1080" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf1080" $B/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
done
prof "lf1000" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 1000
echo "steps $SECONDS s" >> $R/time.txt
nvidia-cuda-mps-control -d
( s=$SECONDS; timeout 200 $B/gpu_test_vortex > $R/gpu_test_vortex.txt 2>&1; echo "== gpu_test_vortex exit $? wall $((SECONDS-s))s" >> $R/tests.txt ) &
LIM=$((580 - SECONDS)); [ $LIM -gt 440 ] && LIM=440
bash $B/exp.sh $B/lr6.txt 7 $LIM
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
