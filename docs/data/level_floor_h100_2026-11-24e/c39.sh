#!/bin/bash
# session 2026-11-24b call 4: the level floor at small N again with 21 repeats (solo), the GPU twin tests that pin one tree,
# then every scene on the CPU backend to t = 10 at reduced size (16 cores)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 150 bash $B/rules3.sh > $OUT/r/rules3.jsonl 2>&1
echo "bench done $SECONDS s" > $OUT/r/time.txt
for t in gpu_test_render_colour gpu_test_vortex gpu_test_accuracy gpu_test_launch; do
  s=$SECONDS; timeout 100 $B/$t > $OUT/r/$t.txt 2>&1; rc=$?; echo "== $t exit $rc wall $((SECONDS-s))s"
done > $OUT/r/tests.txt 2>&1
echo "tests done $SECONDS s" >> $OUT/r/time.txt
timeout -s INT $((565 - SECONDS)) bash scripts/cpu_long_runs.sh $B/vortexfmm $OUT/r/cpu > $OUT/r/cpu_runs.txt 2>&1
echo "cpu exit $? all $SECONDS s" >> $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
