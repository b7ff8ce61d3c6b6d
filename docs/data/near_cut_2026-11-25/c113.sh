#!/bin/bash
# c113: ncu per-kernel times of leapfrog's steps with d958921's tolerances (where its 8.5 ms go now), and with
# f35ac30's (prev/) for the same calls
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 200 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf.txt 2>&1
echo "new $SECONDS s" >> $R/time.txt
timeout 200 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/prev/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf_prev.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
