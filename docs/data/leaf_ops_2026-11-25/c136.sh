#!/bin/bash
# c136: the P2M warps rule counts the SMs, the fused L2P at <= 64 targets a leaf: tests; bench and steps mid/new;
# every scene to t = 10 under MPS (lr6) with new, gpu_test_vortex beside
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_leaf_ops gpu_test_fmm gpu_test_accuracy; do s=$SECONDS; timeout 100 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for v in mid new; do
 run "$v u20" $B/$v/vortexfmm-bench $A --n 1048576 --repeat 7 --check 300
 run "$v r20" $B/$v/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 300
done
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in mid new; do
  prof "big $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
done
prof "big1080 new" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
echo "steps $SECONDS s" >> $R/time.txt
cp $B/new/vortexfmm $B/vortexfmm
nvidia-cuda-mps-control -d
( s=$SECONDS; timeout 200 $B/gpu_test_vortex > $R/gpu_test_vortex.txt 2>&1; echo "== gpu_test_vortex exit $? wall $((SECONDS-s))s" >> $R/tests.txt ) &
LIM=$((585 - SECONDS)); [ $LIM -gt 450 ] && LIM=450
bash $B/exp.sh $B/lr6.txt 7 $LIM
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
