#!/bin/bash
# session 2026-11-24f call 1: the CPU's vectorized pair loops (pair_t.h refactor: the GPU's arithmetic unchanged):
# GPU tests (the twins compare with the new CPU loops), GPU timings against last session's, every scene to t = 10 (GPU)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt; nproc >> $OUT/r/commit.txt; lscpu | grep -i "model name" >> $OUT/r/commit.txt
for t in gpu_test_fmm gpu_test_fmm_reg gpu_test_m2l_spec gpu_test_p2p_fast gpu_test_vortex gpu_test_launch gpu_test_accuracy gpu_test_render_colour gpu_test_m2l_dense gpu_test_octree; do
  s=$SECONDS; timeout 70 $B/$t > $OUT/r/$t.txt 2>&1; rc=$?; echo "== $t exit $rc wall $((SECONDS-s))s"
done > $OUT/r/tests.txt 2>&1
echo "tests done $SECONDS s" > $OUT/r/time.txt
bench() { timeout 60 $B/vortexfmm-bench --backend cuda --json --quiet "$@" 2>/dev/null | tail -n 1; }
for r in 1 2; do
  bench --n 1048576 --precision float --order 8 --repeat 7 --check 300
  bench --n 1048576 --dist rings --precision float --order 8 --repeat 7 --check 300
  bench --n 1048576 --precision double --order 12 --repeat 5 --check 300
done > $OUT/r/bench.jsonl
for s in leapfrog leapfrog_big; do for r in 1 2; do echo "== $s $r"; timeout 60 $B/vortexfmm --headless --scene $s --backend cuda --steps 40 2>&1 | grep -E "step time|far field per" | cut -c1-330; done; done > $OUT/r/steps.txt 2>&1
echo "bench done $SECONDS s" >> $OUT/r/time.txt
nvidia-cuda-mps-control -d && echo mps on >> $OUT/r/time.txt
$B/exp.sh $B/lr6.txt 8 $((565 - SECONDS))
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
