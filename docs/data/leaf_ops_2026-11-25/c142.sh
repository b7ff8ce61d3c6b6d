#!/bin/bash
# c142: fast1 the default for every pair kernel: gpu_test_p2p_fast (the default checked), gpu_test_fmm, gpu_test_leaf_ops;
# 60 steps of every scene, c139's binaries (mid) vs these (new); bench 2^20 uniform and rings, 2^24, double, two rounds
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_p2p_fast gpu_test_fmm gpu_test_leaf_ops; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for cfg in "leapfrog 262144" "leapfrog_big 1048576" "headon 4096" "oblique 4096" "single_ring 4096"; do set -- $cfg
 for v in mid new; do timeout 60 $B/$v/vortexfmm --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$v.csv > $R/bit/$1_$v.log 2>&1; done
 cmp -s <(grep -v "^#" $R/bit/$1_mid.csv | cut -d, -f1-20) <(grep -v "^#" $R/bit/$1_new.csv | cut -d, -f1-20) && echo "$1 mid vs new: columns 1-20 same" || echo "$1 mid vs new: DIFF"
done > $R/bitwise.txt
echo "tests+bit $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2 3; do
 for v in mid new; do
  run "$v u20" $B/$v/vortexfmm-bench $A --n 1048576 --repeat 7 --check 300
  run "$v r20" $B/$v/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 300
 done
done
run "new u24" $B/new/vortexfmm-bench $A --n 16777216 --repeat 3 --check 10
run "new d20" $B/new/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 3 --check 100
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
