#!/usr/bin/env bash
# scripts/bench_gpu.sh — the GPU benchmark sweep behind docs/BENCHMARKS.md: N = 2^14..2^23, uniform
# and rings, float (p = 8) and double (p = 12), errors at 500 sampled targets, GPU direct sum timed
# where affordable (N <= 2^18 every time, 2^20 once). One JSON line per run on stdout.
# Usage: scripts/bench_gpu.sh [BENCH_BINARY]     (default build/vortexfmm-bench)
set -euo pipefail
bench=${1:-build/vortexfmm-bench}
for dist in uniform rings; do
  for prec in float double; do
    order=8; [[ $prec == double ]] && order=12
    for e in 14 15 16 17 18 19 20 21 22 23; do
      n=$((1 << e))
      extra=()
      if (( e <= 18 )); then extra=(--vs-direct); fi
      "$bench" --backend cuda --n "$n" --dist "$dist" --precision "$prec" --order "$order" \
        --check 500 --repeat 3 --json --quiet "${extra[@]}"
    done
    "$bench" --backend cuda --n 1048576 --dist "$dist" --precision "$prec" --order "$order" \
      --repeat 1 --vs-direct --json --quiet
  done
done
