#!/bin/bash
# session 2026-11-24f call 4: issue 12's size ratios, 2^23 rings against 2^21 and 2^22 uniform against 2^20, float p = 8,
# with 8aca1c4's bench (its GPU engine's PTX equals this session's HEAD but for k_corr, which these runs do not use)
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
bench() { timeout 120 .gpu/old/vortexfmm-bench-8aca1c4 --backend cuda --precision float --order 8 --json --quiet "$@" 2>/dev/null | tail -n 1; }
for r in 1 2; do
  bench --n 2097152 --dist rings --repeat 5 --check 30
  bench --n 8388608 --dist rings --repeat 5 --check 30
  bench --n 1048576 --repeat 5 --check 30
  bench --n 4194304 --repeat 5 --check 30
done > $OUT/r/ratios.jsonl
echo "all $SECONDS s" > $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
