#!/bin/bash
# c155: the leaf floor (min_leaves) at small N: the automatic level with --min-leaves -1 (none), 16, 33, 66 and
# 0 (the default, the SMs: 132) against every forced level, uniform and rings, N = 2^12 ... 2^17
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
J=$R/floor.jsonl
A="--backend cuda --json --quiet --precision float --order 8"
one() { tag=$1; shift; timeout 60 $B/new/vortexfmm-bench $A "$@" | sed "s/^{/{\"tag\":\"$tag\",/" >> $J; }
for r in 1 2; do
 for e in 12 13 14 15 16 17; do
  n=$((1 << e))
  for d in uniform rings; do
   for m in -1 16 33 66 0; do one "min$m" --dist $d --n $n --min-leaves $m --repeat 21 --check 50; done
   for l in 2 3 4 5 6; do one "L$l" --dist $d --n $n --levels $l --repeat 21 --check 50; done
  done
 done
 echo "round $r $SECONDS s" >> $R/time.txt
done
cd $OUT && tar czf all.tgz r && rm -rf r
