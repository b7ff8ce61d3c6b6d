#!/bin/bash
# session 2026-11-24 call 9: sim.c's engine_call refactor: GPU twin tests, and leapfrog/single_ring to t = 1 against call 5's rows
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
for t in gpu_test_vortex gpu_test_launch; do s=$SECONDS; timeout 150 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done | tee $OUT/r/tests.txt
$B/vortexfmm --headless --quiet --scene leapfrog --backend cuda --tracers 0 --t-end 1 --diag-every 50 --diag $OUT/r/leapfrog_t1.csv
$B/vortexfmm --headless --quiet --scene single_ring --backend cuda --tracers 0 --t-end 1 --diag-every 50 --diag $OUT/r/single_ring_t1.csv
cd $OUT && tar czf all.tgz r && rm -rf r
