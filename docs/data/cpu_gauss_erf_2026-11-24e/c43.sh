#!/bin/bash
# session 2026-11-24b call 8: the CPU's float Gaussian pairs with A&S's erf (5d0c41f): the GPU twin tests that compare
# the backends, the CPU's leapfrog step on 2 and 16 threads, then every scene on the CPU backend at reduced size to t = 10
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
for t in gpu_test_fmm gpu_test_fmm_reg gpu_test_p2p_fast gpu_test_vortex gpu_test_launch gpu_test_accuracy gpu_test_render_colour gpu_test_m2l_spec; do
  s=$SECONDS; timeout 60 $B/$t > $OUT/r/$t.txt 2>&1; rc=$?; echo "== $t exit $rc wall $((SECONDS-s))s"
done > $OUT/r/tests.txt 2>&1
echo "tests done $SECONDS s" > $OUT/r/time.txt
timeout -s INT $((560 - SECONDS)) bash scripts/cpu_long_runs.sh $B/vortexfmm $OUT/r/cpu > $OUT/r/cpu_runs.txt 2>&1
echo "cpu exit $? all $SECONDS s" >> $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
