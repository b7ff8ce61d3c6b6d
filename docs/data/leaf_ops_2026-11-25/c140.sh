#!/bin/bash
# c140: the fast P2P's targets a thread (VX_P2P=fast1|fast2|fast4) and split rows (VX_P2P_SPLIT=0|1|2) again with the
# leaner pair: 2^20 rings and uniform; leapfrog_big with fast1 (default) and fast2
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in fast1 fast2 fast4; do
  run "$v r20" VX_P2P=$v $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 10
  run "$v u20" VX_P2P=$v $B/new/vortexfmm-bench $A --n 1048576 --repeat 7 --check 10
 done
 for s in 0 2; do run "split$s r20" VX_P2P_SPLIT=$s $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 10; done
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
