#!/bin/bash
# session 2026-11-24b call 9: the twin tests with one floor on the leaves on both backends (tests/test_twins.h)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
for t in gpu_test_fmm gpu_test_fmm_reg gpu_test_m2l_spec gpu_test_p2p_fast gpu_test_render gpu_test_vortex gpu_test_launch gpu_test_accuracy gpu_test_render_colour; do
  s=$SECONDS; timeout 60 $B/$t > $OUT/r/$t.txt 2>&1; rc=$?; echo "== $t exit $rc wall $((SECONDS-s))s"
done > $OUT/r/tests.txt 2>&1
cd $OUT && tar czf all.tgz r && rm -rf r
