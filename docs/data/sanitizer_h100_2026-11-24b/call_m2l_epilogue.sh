#!/bin/bash
# session 2026-11-24 call 6: the M2L kernels' shared epilogue (tests, bench), compute-sanitizer where the machine has it
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
for t in gpu_test_m2l_spec gpu_test_fmm; do s=$SECONDS; timeout 120 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done | tee $OUT/r/tests.txt
for r in 1 2; do $B/vortexfmm-bench --backend cuda --n 1048576 --precision float --order 8 --repeat 7 --check 300 --json --quiet 2>&1 | tail -n 1; done > $OUT/r/bench.jsonl
CS=$(ls /usr/local/cuda*/bin/compute-sanitizer /usr/local/cuda*/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1); [ -z "$CS" ] && CS=$(command -v compute-sanitizer)
echo "compute-sanitizer: ${CS:-none}" | tee $OUT/r/sanitizer.txt
if [ -n "$CS" ]; then for tool in memcheck racecheck; do timeout 200 $CS --tool $tool --error-exitcode 9 $B/gpu_test_m2l_spec > $OUT/r/san_$tool.txt 2>&1; echo "$tool exit $?" | tee -a $OUT/r/sanitizer.txt; done; fi
cd $OUT && tar czf all.tgz r && rm -rf r && ls -la $OUT
