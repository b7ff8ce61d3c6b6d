#!/usr/bin/env bash
# scripts/bench_cpu.sh — the CPU engine's sweep in docs/BENCHMARKS.md ("CPU engine"): uniform points
# in double, N = 2^12..2^20, orders 4, 8, 12, 16 in one process per N, errors at 500 sampled targets
# against direct summation, and the full direct sum timed where affordable (N <= 2^16).
# Writes the JSON lines to OUT_DIR/bench_cpu.jsonl and prints the tables (scripts/bench_table.py).
# Usage: scripts/bench_cpu.sh [BENCH_BINARY] [OUT_DIR]
#        (defaults build/vortexfmm-bench and build/bench; OMP_NUM_THREADS sets the threads)
set -euo pipefail
bench=${1:-build/vortexfmm-bench}
out=${2:-build/bench}
mkdir -p "$out"
raw=$out/bench_cpu.jsonl
: > "$raw"
for e in 12 13 14 15 16 17 18 19 20; do
  n=$((1 << e))
  extra=()
  if (( e <= 16 )); then extra=(--vs-direct); fi
  "$bench" --backend cpu --n "$n" --dist uniform --sweep-orders 4,8,12,16 --check 500 --repeat 1 \
    --json --quiet "${extra[@]}" >> "$raw"
done
python3 "$(dirname "$0")/bench_table.py" "$raw" --by-order
