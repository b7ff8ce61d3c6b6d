#!/bin/bash
# c62: per-level M2L (spec vs tc) on rings for the tc fill threshold; leaf 256 vs 128 with tc over N; tests
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib 2>/dev/null
R=$OUT/r; mkdir -p $R; cd $R
B1="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 60 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
for m in spec tc; do
 run "r22 $m" VX_M2L=$m $B1 --dist rings --n 4194304 --repeat 3 --check 50
 run "r24 $m" VX_M2L=$m $B1 --dist rings --n 16777216 --repeat 3 --check 20
 run "r23 $m" VX_M2L=$m $B1 --dist rings --n 8388608 --repeat 3 --check 20
 run "u23 $m" VX_M2L=$m $B1 --n 8388608 --repeat 3 --check 20
done
for e in 16 17 18 19 20 21 22 23 24; do
 n=$((1<<e)); rp=5; [ $e -ge 23 ] && rp=3
 for d in uniform rings; do
  for lf in 256 128; do
   run "lv $d $e leaf$lf" $B1 --dist $d --n $n --leaf $lf --repeat $rp --check 50
  done
 done
done
timeout 120 $B/gpu_test_m2l_dense > t_dense.txt 2>&1; echo "rc=$?" >> t_dense.txt
timeout 150 $B/gpu_test_m2l_spec > t_spec.txt 2>&1; echo "rc=$?" >> t_spec.txt
timeout 150 $B/gpu_test_fmm > t_fmm.txt 2>&1; echo "rc=$?" >> t_fmm.txt
