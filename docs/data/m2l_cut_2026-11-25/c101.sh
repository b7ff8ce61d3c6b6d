#!/bin/bash
# c101: the tensor-core M2L at the coarse levels too (VX_M2L=tc) against auto; phases one at a time (VX_FMM_SERIAL=1)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in auto tc; do
  run "$v u20" VX_M2L=$v $B/vortexfmm-bench $A --n 1048576 --repeat 7 --check 1000
  run "$v u24" VX_M2L=$v $B/vortexfmm-bench $A --n 16777216 --repeat 3 --check 30
  run "$v u17" VX_M2L=$v $B/vortexfmm-bench $A --n 131072 --repeat 9 --check 1000
 done
done
run "serial u20" VX_FMM_SERIAL=1 $B/vortexfmm-bench $A --n 1048576 --repeat 7 --check 1000
run "serial u20 tc" VX_FMM_SERIAL=1 VX_M2L=tc $B/vortexfmm-bench $A --n 1048576 --repeat 7 --check 1000
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
