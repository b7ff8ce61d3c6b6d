#!/bin/bash
# session 2026-11-24b call 3: the level floor at small N (three rounds, with and without it, forced levels), then every GPU test
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 170 bash $B/rules2.sh > $OUT/r/rules2.jsonl 2>&1
echo "bench done $SECONDS s" > $OUT/r/time.txt
for t in gpu_test_octree gpu_test_vortex gpu_test_fmm gpu_test_fmm_reg gpu_test_accuracy gpu_test_cost gpu_test_launch gpu_test_m2l_dense gpu_test_m2l_spec gpu_test_p2p_fast gpu_test_render gpu_test_render_colour; do
  left=$((560 - SECONDS)); [ $left -lt 20 ] && { echo "== $t not run (time)"; continue; }
  s=$SECONDS; timeout $left $B/$t > $OUT/r/$t.txt 2>&1; rc=$?; echo "== $t exit $rc wall $((SECONDS-s))s"
done > $OUT/r/tests.txt 2>&1
echo "all $SECONDS s" >> $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
