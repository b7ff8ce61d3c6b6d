#!/bin/bash
# c83: tracers seeded in spatial order (864ad82) against seeding order (vortexfmm_old: 1ebbb8f's code, built in a
# worktree with an experiment switch left off): GPU test; every scene 60 steps, diagnostics compared; step times
# (100 and 2500 steps) and 1080p frames alternated; every scene to t = 10 (lr6, MPS, no tracers)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_vortex; do s=$SECONDS; timeout 120 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for sc in leapfrog leapfrog_big single_ring headon oblique; do
 for v in vortexfmm_old vortexfmm; do
  timeout 90 $B/$v --headless --quiet --scene $sc --backend cuda --steps 60 --diag-every 5 --diag $R/bit/${sc}_$v.csv > $R/bit/${sc}_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/${sc}_vortexfmm_old.csv | cut -d, -f1-14) <(grep -v "^#" $R/bit/${sc}_vortexfmm.csv | cut -d, -f1-14) && echo "$sc same" || echo "$sc DIFF"
done > $R/bitwise.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in vortexfmm_old vortexfmm; do
  prof "big $v" $B/$v --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf $v" $B/$v --headless --scene leapfrog --backend cuda --steps 60
  prof "big1080 $v" $B/$v --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf1080 $v" $B/$v --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
 done
done
for v in vortexfmm_old vortexfmm; do
 prof "big2500 $v" $B/$v --headless --scene leapfrog_big --backend cuda --steps 2500
 prof "lf1000 $v" $B/$v --headless --scene leapfrog --backend cuda --steps 1000
done
echo "steps $SECONDS s" > $R/time.txt
cd $B/../..
nvidia-cuda-mps-control -d
LIM=$((545 - SECONDS)); [ $LIM -gt 300 ] && LIM=300
bash $B/exp.sh $B/lr6.txt 7 $LIM
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
