#!/bin/bash
# c141: the singular pair's -3 applied to the sums (pair_split_scale): tests; 60 steps of every scene mid/new (Gaussian:
# expected equal); fast1 vs fast2 for the singular kernel over sizes, distributions, double and Rosenhead-Moore, mid and new
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_p2p_fast gpu_test_fmm gpu_test_leaf_ops gpu_test_fmm_reg gpu_test_accuracy; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
for cfg in "leapfrog 262144" "leapfrog_big 1048576" "single_ring 4096"; do set -- $cfg
 for v in mid new; do timeout 60 $B/$v/vortexfmm --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$v.csv > $R/bit/$1_$v.log 2>&1; done
 cmp -s <(grep -v "^#" $R/bit/$1_mid.csv | cut -d, -f1-20) <(grep -v "^#" $R/bit/$1_new.csv | cut -d, -f1-20) && echo "$1 mid vs new: columns 1-20 same" || echo "$1 mid vs new: DIFF"
done > $R/bitwise.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in mid new; do for T in fast1 fast2; do
  run "$v $T r20" VX_P2P=$T $B/$v/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 300
  run "$v $T u20" VX_P2P=$T $B/$v/vortexfmm-bench $A --n 1048576 --repeat 7 --check 300
 done; done
done
for T in fast1 fast2; do
 run "new $T u16" VX_P2P=$T $B/new/vortexfmm-bench $A --n 65536 --repeat 21 --check 50
 run "new $T r16" VX_P2P=$T $B/new/vortexfmm-bench $A --dist rings --n 65536 --repeat 21 --check 50
 run "new $T u18" VX_P2P=$T $B/new/vortexfmm-bench $A --n 262144 --repeat 11 --check 50
 run "new $T r18" VX_P2P=$T $B/new/vortexfmm-bench $A --dist rings --n 262144 --repeat 11 --check 50
 run "new $T u22" VX_P2P=$T $B/new/vortexfmm-bench $A --n 4194304 --repeat 3 --check 30
 run "new $T r22" VX_P2P=$T $B/new/vortexfmm-bench $A --dist rings --n 4194304 --repeat 3 --check 30
 run "new $T u24" VX_P2P=$T $B/new/vortexfmm-bench $A --n 16777216 --repeat 3 --check 10
 run "new $T d20" VX_P2P=$T $B/new/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 3 --check 100
 run "new $T dr20" VX_P2P=$T $B/new/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12 --dist rings --n 1048576 --repeat 3 --check 100
 run "new $T rm20" VX_P2P=$T $B/new/vortexfmm-bench $A --dist rings --n 1048576 --kernel rm --sigma 0.003 --repeat 5 --check 100
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
