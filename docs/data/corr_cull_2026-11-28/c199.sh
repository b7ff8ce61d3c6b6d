#!/bin/bash
# c199 (H100): 1000 frames at 1920x1080 of leapfrog_big and leapfrog with the far field's stream
# first (the default since dc288b6) and VX_STREAM_PRIO=none, alternated, two rounds.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 100 env "$@" 2>&1 | grep "frame time, median" >> $P; }
for round in 1 2; do for s in leapfrog_big leapfrog; do for m in far none; do
 prof "1000f $s $m" VX_STREAM_PRIO=$m $H/exp/vortexfmm --headless --scene $s --backend cuda --frames 1000 --size 1920x1080
done; done; done
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
