#!/bin/bash
# c65: k_m2l_tc, four threads a target stage the sources
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib 2>/dev/null
R=$OUT/r; mkdir -p $R; cd $R
B1="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 60 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
timeout 120 $B/gpu_test_m2l_dense > t_dense.txt 2>&1; echo "rc=$?" >> t_dense.txt
for round in 1 2; do
 for m in auto-simt auto; do
  run "u20 L5 $m" VX_M2L=$m $B1 --n 1048576 --levels 5 --repeat 7 --check 300
  run "u22 L6 $m" VX_M2L=$m $B1 --n 4194304 --levels 6 --repeat 3 --check 100
 done
done
for m in auto-simt auto; do
 run "u24 $m" VX_M2L=$m $B1 --n 16777216 --repeat 3 --check 30
done
timeout 150 $B/gpu_test_m2l_spec > t_spec.txt 2>&1; echo "rc=$?" >> t_spec.txt
VX_M2L=tc timeout 100 ncu --kernel-name regex:k_m2l_tc --launch-skip 6 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section Occupancy $B/vortexfmm-bench --backend cuda --precision float --order 8 --n 4194304 --levels 6 --repeat 1 > ncu_tc.txt 2>&1
