#!/bin/bash
# c147: leapfrog_big's 1080p frame with the render split (particles, histogram, opacity, draw calls; GL passes on
# the GPU), and render variants: no opacity, opacity at a quarter, 32 ray samples, interop off
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
V="$B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080"
for round in 1 2; do
 prof "big1080" $V
 prof "big1080 no-opacity" $V --no-opacity
 prof "big1080 opacity-scale 4" $V --opacity-scale 4
 prof "big1080 ray-samples 32" $V --ray-samples 32
 prof "big1080 nofinish" VX_EXP_NOFINISH=1 $V
done
prof "big1080 interop off" $V --interop off
prof "big1080 size 1280x720" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1280x720
prof "big steps" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
prof "lf1080" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
