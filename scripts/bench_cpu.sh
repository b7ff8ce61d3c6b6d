#!/usr/bin/env bash
# scripts/bench_cpu.sh — the CPU benchmark sweep behind docs/BENCHMARKS.md: uniform points,
# N = 2^12..2^20, orders 4, 8, 12, 16 (double), errors at 500 sampled targets against direct
# summation, and the full direct sum timed where affordable (N <= 2^16). One JSON line per run.
# Usage: scripts/bench_cpu.sh [BENCH_BINARY]     (default build/vortexfmm-bench)
set -euo pipefail
bench=${1:-build/vortexfmm-bench}
for e in 12 13 14 15 16 17 18 19 20; do
  n=$((1 << e))
  extra=()
  if (( e <= 16 )); then extra=(--vs-direct); fi
  "$bench" --backend cpu --n "$n" --dist uniform --sweep-orders 4,8,12,16 --check 500 --repeat 1 \
    --json --quiet "${extra[@]}"
done
