#!/bin/bash
# c71: the final commit's binaries (tile setup through dense_slot_offset): twin tests and two bench rows
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib 2>/dev/null
R=$OUT/r; mkdir -p $R; cd $R; cat $B/COMMIT > commit.txt
for t in gpu_test_m2l_dense gpu_test_m2l_spec gpu_test_fmm; do s=$SECONDS; timeout 120 $B/$t > $t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > tests.txt
BF="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
$BF --n 16777216 --repeat 3 --check 30 > bench.txt 2>&1
$BF --n 1048576 --levels 5 --repeat 7 --check 300 >> bench.txt 2>&1
cd $OUT && tar czf all.tgz r && rm -rf r
