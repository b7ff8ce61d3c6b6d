#!/bin/bash
# c89: VX_P2P_SPLIT=0|1|2 alternated (k_p2p_fast's short last row: never / a warp's only row / always split); ncu of k_p2p_fast at 2^24
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cd $R; cat $B/COMMIT > commit.txt
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 90 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
BF="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in 0 1 2; do
  run "s$v u20 float" VX_P2P_SPLIT=$v $BF --n 1048576 --repeat 7 --check 300
  run "s$v r20 float" VX_P2P_SPLIT=$v $BF --dist rings --n 1048576 --repeat 7 --check 300
  run "s$v u24 float" VX_P2P_SPLIT=$v $BF --n 16777216 --repeat 3 --check 10
  run "s$v r22 float" VX_P2P_SPLIT=$v $BF --dist rings --n 4194304 --repeat 5 --check 30
 done
done
for v in 0 1 2; do
  run "s$v u20 double" VX_P2P_SPLIT=$v $B/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 5 --check 300
  run "s$v u22 float" VX_P2P_SPLIT=$v $BF --n 4194304 --repeat 5 --check 30
done
echo "bench $SECONDS s" > time.txt
NCU=/usr/local/cuda/bin/ncu
for v in 0 1; do
 timeout 150 env VX_P2P_SPLIT=$v $NCU -k regex:k_p2p_fast -c 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats $BF --n 16777216 --repeat 1 --check 10 > ncu_u24_s$v.txt 2>&1
done
echo "all $SECONDS s" >> time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
