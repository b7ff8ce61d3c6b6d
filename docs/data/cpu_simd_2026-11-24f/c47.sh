#!/bin/bash
# session 2026-11-24f call 3: gpu_test_fmm_reg (its float thick-core bound), the GPU bench before (8aca1c4) and after
# this session's pair_t.h refactor alternated in one process order, then every scene on the CPU backend at reduced
# size to t = 10 with the final binaries (leaf 64 again where the pairs do not vectorize)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
timeout 70 $B/gpu_test_fmm_reg > $OUT/r/gpu_test_fmm_reg.txt 2>&1; echo "gpu_test_fmm_reg exit $?" > $OUT/r/time.txt
bench() { timeout 60 "$@" --backend cuda --json --quiet 2>/dev/null | tail -n 1; }
for r in 1 2; do for v in .gpu/old/vortexfmm-bench-8aca1c4 $B/vortexfmm-bench; do
  echo "$v uniform"; bench $v --n 1048576 --precision float --order 8 --repeat 7 --check 100
  echo "$v rings"; bench $v --n 1048576 --dist rings --precision float --order 8 --repeat 7 --check 100
done; done > $OUT/r/ab.txt
echo "ab done $SECONDS s" >> $OUT/r/time.txt
timeout -s INT $((570 - SECONDS)) bash scripts/cpu_long_runs.sh $B/vortexfmm $OUT/r/cpu > $OUT/r/cpu_runs.txt 2>&1
echo "cpu exit $? all $SECONDS s" >> $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
