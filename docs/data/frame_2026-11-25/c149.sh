#!/bin/bash
# c149: where the hand-over's time goes: VX_EXP_SYNC=1 (an experiment build) synchronises the device at the end of the
# particles' upload, the histogram and the opacity, so each shows its own GPU time; prev = c147's build
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
V="--headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080"
for round in 1 2; do
 prof "big1080 new" $B/new/vortexfmm $V
 prof "big1080 new sync" VX_EXP_SYNC=1 $B/new/vortexfmm $V
 prof "big1080 new sync no-opacity" VX_EXP_SYNC=1 $B/new/vortexfmm $V --no-opacity
 prof "big1080 new sync opacity-level 0" VX_EXP_SYNC=1 $B/new/vortexfmm $V --opacity-level 0
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
