#!/bin/bash
# session 2026-11-24 call 8: separate target trees (VX_SPLIT_TARGETS=1) against one tree, scene step times, alternated
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
for r in 1 2; do for v in 0 1; do
  for sc in "leapfrog_big --steps 100" "leapfrog --steps 40" "single_ring --steps 40" "headon --steps 40"; do
    echo "split=$v $sc: $(VX_SPLIT_TARGETS=$v $B/vortexfmm --headless --scene $sc --backend cuda 2>&1 | grep 'step time' | cut -c1-230)"
  done
done; done | tee $OUT/r/split.txt
cd $OUT && tar czf all.tgz r && rm -rf r
