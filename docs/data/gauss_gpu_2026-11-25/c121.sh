#!/bin/bash
# c121 (9c1d54e + the test's expectation): gpu_test_p2p_fast; ncu per-kernel times of leapfrog's first steps and of
# leapfrog_big's; leapfrog without tracers (the elements' own share of the step)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
s=$SECONDS; timeout 100 $B/gpu_test_p2p_fast > $R/gpu_test_p2p_fast.txt 2>&1; echo "== gpu_test_p2p_fast exit $? wall $((SECONDS-s))s" > $R/tests.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 200 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf.txt 2>&1
echo "ncu lf $SECONDS s" >> $R/time.txt
timeout 200 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big.txt 2>&1
echo "ncu big $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 prof "lf60 tracers 0" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60 --tracers 0
 prof "lf60" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 prof "big tracers 0" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100 --tracers 0
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
