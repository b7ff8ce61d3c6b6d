#!/bin/bash
# c110: gpu_test_vortex with the impulse compared relative to max(|I|, one ring's πΓR²), three times
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for i in 1 2 3; do timeout 150 $B/gpu_test_vortex > $R/gpu_test_vortex_$i.txt 2>&1; echo "== run $i exit $?"; done > $R/tests.txt
cd $OUT && tar czf all.tgz r && rm -rf r
