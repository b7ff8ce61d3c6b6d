#!/bin/bash
# c150: the renderer's kernels under ncu (durations alone); the hand-over reordered (VX_EXP_ORDER=1: histogram and
# the camera's follow before the point buffers' interop), with and without VX_EXP_SYNC
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
NCU=$(which ncu || ls /usr/local/cuda*/bin/ncu | head -1)
V="--headless --scene leapfrog_big --backend cuda --size 1920x1080"
timeout 200 $NCU --kernel-name regex:"^rd_" --metrics gpu__time_duration.sum --print-summary per-kernel $B/new/vortexfmm $V --frames 12 > $R/ncu_rd.txt 2>&1
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 prof "big1080 new" $B/new/vortexfmm $V --frames 300
 prof "big1080 new order" VX_EXP_ORDER=1 $B/new/vortexfmm $V --frames 300
 prof "big1080 new order sync" VX_EXP_ORDER=1 VX_EXP_SYNC=1 $B/new/vortexfmm $V --frames 300
done
prof "lf1080 new order" VX_EXP_ORDER=1 $B/new/vortexfmm --headless --scene leapfrog --backend cuda --size 1920x1080 --frames 300
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
