#!/bin/bash
# c143: k_p2p_fast<K,1>'s source loop unrolled 4 (u4) against 2 (u2, as shipped): bench 2^20 rings / uniform (singular),
# Gaussian rings; scenes' steps; 60 steps of every scene u2 vs u4 (summation order unchanged: expected equal)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2 3; do
 for v in u2 u4; do
  run "$v r20" $B/$v/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 100
  run "$v u20" $B/$v/vortexfmm-bench $A --n 1048576 --repeat 7 --check 100
 done
done
for v in u2 u4; do
 run "$v gr20" $B/$v/vortexfmm-bench $A --dist rings --n 1048576 --kernel gauss --sigma 0.003 --repeat 5 --check 50
 run "$v u24" $B/$v/vortexfmm-bench $A --n 16777216 --repeat 3 --check 10
done
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in u2 u4; do
  prof "big $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
done
for cfg in "leapfrog 262144" "leapfrog_big 1048576" "single_ring 4096"; do set -- $cfg
 for v in u2 u4; do timeout 60 $B/$v/vortexfmm --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$v.csv > $R/bit/$1_$v.log 2>&1; done
 cmp -s <(grep -v "^#" $R/bit/$1_u2.csv | cut -d, -f1-20) <(grep -v "^#" $R/bit/$1_u4.csv | cut -d, -f1-20) && echo "$1 u2 vs u4: columns 1-20 same" || echo "$1 u2 vs u4: DIFF"
done > $R/bitwise.txt
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
