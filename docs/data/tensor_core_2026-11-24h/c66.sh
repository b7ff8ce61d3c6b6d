#!/bin/bash
# c66: the order-specialised P2M (k_p2m_spec) against k_p2m (VX_P2M=base): tests, then benchmarks
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib 2>/dev/null
R=$OUT/r; mkdir -p $R; cd $R
BF="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
BD="$B/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12"
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 60 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
timeout 100 $B/gpu_test_fmm > t_fmm.txt 2>&1; echo "rc=$?" >> t_fmm.txt
for round in 1 2; do
 for m in base spec; do
  run "u20 $m" VX_P2M=$m $BF --n 1048576 --repeat 7 --check 300
  run "u20 serial $m" VX_FMM_SERIAL=1 VX_P2M=$m $BF --n 1048576 --repeat 7 --check 300
  run "r20 $m" VX_P2M=$m $BF --dist rings --n 1048576 --repeat 7 --check 300
  run "u20 d12 $m" VX_P2M=$m $BD --n 1048576 --repeat 5 --check 300
 done
done
for m in base spec; do
 run "u24 $m" VX_P2M=$m $BF --n 16777216 --repeat 3 --check 30
done
timeout 150 $B/gpu_test_m2l_spec > t_spec.txt 2>&1; echo "rc=$?" >> t_spec.txt
timeout 60 $B/gpu_test_accuracy > t_acc.txt 2>&1; echo "rc=$?" >> t_acc.txt
