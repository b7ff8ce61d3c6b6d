#!/bin/bash
# session 2026-11-25 call 8: the default demo's frame rate (leapfrog, 1920x1080, headless EGL, 300 frames), the default
# (FMM_REG_AUTO) against the cap, alternated, two rounds
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 400 bash -c '
B=.gpu/bin
for rnd in 1 2; do for v in "VX_REG_CORRECT=2" "VX_REG_CORRECT=0"; do
  echo "== $v"; env $v $B/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080 2>&1 | tail -n 4 | cut -c1-300
done; done' > $OUT/r/fps.txt 2>&1
cd $OUT && tar czf all.tgz r && rm -rf r
