#!/bin/bash
# c58: tensor-core dense M2L (k_m2l_tc): twin tests, then benchmarks against spec/dense
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib 2>/dev/null
R=$OUT/r; mkdir -p $R; cd $R
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > gpu.txt
B1="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 60 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
timeout 120 $B/gpu_test_m2l_dense > t_dense.txt 2>&1; echo "rc=$?" >> t_dense.txt
for round in 1 2; do
 for m in spec dense tc; do
  run "u20 L5 serial $m" VX_FMM_SERIAL=1 VX_M2L=$m $B1 --n 1048576 --levels 5 --repeat 5 --check 300
 done
 for m in spec dense tc; do
  run "u20 L5 $m" VX_M2L=$m $B1 --n 1048576 --levels 5 --repeat 7 --check 300
 done
 for m in auto tc; do
  run "u20 auto $m" VX_M2L=$m $B1 --n 1048576 --repeat 7 --check 300
 done
done
for m in dense tc; do
 run "u22 $m" VX_M2L=$m $B1 --n 4194304 --repeat 5 --check 100
 run "u22 L6 $m" VX_M2L=$m $B1 --n 4194304 --levels 6 --repeat 3 --check 100
 run "u24 $m" VX_M2L=$m $B1 --n 16777216 --repeat 3 --check 30
 run "r20 L7 $m" VX_M2L=$m $B1 --dist rings --n 1048576 --levels 7 --repeat 5 --check 300
 run "r20 $m" VX_M2L=$m $B1 --dist rings --n 1048576 --repeat 5 --check 300
done
timeout 150 $B/gpu_test_m2l_spec > t_spec.txt 2>&1; echo "rc=$?" >> t_spec.txt
