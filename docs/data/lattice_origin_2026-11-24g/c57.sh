#!/bin/bash
# session 2026-11-24g call 8: the GPU tests that read the shipped scenes, with the final scene files
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
for t in gpu_test_render_colour gpu_test_render gpu_test_accuracy gpu_test_launch gpu_test_vortex; do
  s=$SECONDS; timeout 200 $B/$t > $OUT/r/$t.txt 2>&1; rc=$?; echo "== $t exit $rc wall $((SECONDS-s))s"
done > $OUT/r/tests.txt 2>&1
cd $OUT && tar czf all.tgz r && rm -rf r
