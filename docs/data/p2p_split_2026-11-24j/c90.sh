#!/bin/bash
# c90: k_p2p_fast's source tile 512 (vortexfmm-bench) against 256 (vortexfmm-bench-t256), both splitting lone short rows
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cd $R; cat $B/COMMIT > commit.txt
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 90 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in 512 256; do
  BB=$B/vortexfmm-bench; [ $v = 256 ] && BB=$B/vortexfmm-bench-t256
  run "t$v u20 float" $BB $A --n 1048576 --repeat 7 --check 300
  run "t$v r20 float" $BB $A --dist rings --n 1048576 --repeat 7 --check 300
  run "t$v u24 float" $BB $A --n 16777216 --repeat 3 --check 10
  run "t$v r22 float" $BB $A --dist rings --n 4194304 --repeat 5 --check 30
  run "t$v u22 float" $BB $A --n 4194304 --repeat 5 --check 30
  run "t$v u20 double" $BB --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 5 --check 300
  run "t$v u18 float" $BB $A --n 262144 --repeat 9 --check 300
 done
done
echo "bench $SECONDS s" > time.txt
NCU=/usr/local/cuda/bin/ncu
timeout 150 $NCU -k regex:k_p2p_fast -c 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats $B/vortexfmm-bench-t256 $A --n 16777216 --repeat 1 --check 10 > ncu_u24_t256.txt 2>&1
echo "all $SECONDS s" >> time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
