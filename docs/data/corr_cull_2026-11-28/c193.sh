#!/bin/bash
# c193 (H100): c192's counting build alone (cnt: -DVX_CORR_COUNT, both kinds culled by the warps'
# boxes): per k_corr call, the staged sources the active warps saw and those in the runs they took,
# summed over warps, for velocity-only and gradient chunks (corr_count lines, two steps: 8 calls).
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; nvidia-smi -L > $R/device.txt
for s in leapfrog leapfrog_big headon oblique; do echo "== $s" >> $R/counts.txt; VX_CORR_COUNT=1 timeout 60 $H/cnt/vortexfmm --headless --quiet --scene $s --backend cuda --steps 2 2>&1 | grep corr_count >> $R/counts.txt; done
echo "== leapfrog, steps 480-481 (t = 0.96)" >> $R/counts.txt
VX_CORR_COUNT=1 timeout 60 $H/cnt/vortexfmm --headless --quiet --scene leapfrog --backend cuda --steps 481 2>&1 | grep corr_count | tail -8 >> $R/counts.txt
cd $OUT && tar czf all.tgz r && rm -rf r
