#!/bin/bash
# session 2026-11-25 call 5: leapfrog over t <= 1 (float, tracers 0, rows every 10 steps) capped (level 2) against corrections
# within r_c at level 4 and at the leaf-size level; the bench's rings at sigma = 0.03 capped / corrected, errors against direct
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 420 bash -c '
B=.gpu/bin
$B/vortexfmm --headless --quiet --scene leapfrog --backend cuda --tracers 0 --t-end 1 --diag-every 10 --diag $OUT/r/lf_cap.csv 2> $OUT/r/lf_cap.log &
VX_REG_CORRECT=1 VX_LEVELS=4 $B/vortexfmm --headless --quiet --scene leapfrog --backend cuda --tracers 0 --t-end 1 --diag-every 10 --diag $OUT/r/lf_rc4.csv 2> $OUT/r/lf_rc4.log &
VX_REG_CORRECT=1 VX_LEVELS=4 VX_REG_TOL=1e-5 $B/vortexfmm --headless --quiet --scene leapfrog --backend cuda --tracers 0 --t-end 1 --diag-every 10 --diag $OUT/r/lf_rc4t.csv 2> $OUT/r/lf_rc4t.log &
wait
for a in "" "--reg-correct --levels 4" "--reg-correct --levels 5" "--reg-correct --levels 4 --reg-tol 1e-5"; do
  echo "== $a"; $B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8 --n 262144 --dist rings --kernel gauss --sigma 0.03 --check 1000 --repeat 3 $a
done > $OUT/r/bench_rings.txt 2>&1
'
echo "all $SECONDS s" > $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
