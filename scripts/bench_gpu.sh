#!/usr/bin/env bash
# scripts/bench_gpu.sh — the GPU engine's sweep in docs/BENCHMARKS.md ("GPU engine"):
#  1. N = 2^14..2^24, uniform and rings, float at p = 8 and double at p = 12, errors at 500 sampled
#     targets, the GPU direct sum timed where affordable (N <= 2^18 every time, 2^20 once);
#  2. the orders at 2^20, uniform and rings: float and double at p = 2 to 12, and double at p = 16.
# Writes the JSON lines to OUT_DIR/bench_gpu.jsonl and OUT_DIR/bench_gpu_orders.jsonl and prints
# the tables (scripts/bench_table.py). The scenes' steps and frames are separate commands
# (docs/BENCHMARKS.md "Scenes").
# Usage: scripts/bench_gpu.sh [BENCH_BINARY] [OUT_DIR]   (defaults build/vortexfmm-bench, build/bench)
set -euo pipefail
bench=${1:-build/vortexfmm-bench}
out=${2:-build/bench}
mkdir -p "$out"
raw=$out/bench_gpu.jsonl
orders=$out/bench_gpu_orders.jsonl
: > "$raw"
: > "$orders"
for dist in uniform rings; do
  for prec in float double; do
    order=8; [[ $prec == double ]] && order=12
    for e in 14 15 16 17 18 19 20 21 22 23 24; do
      n=$((1 << e))
      extra=()
      if (( e <= 18 )); then extra=(--vs-direct); fi
      "$bench" --backend cuda --n "$n" --dist "$dist" --precision "$prec" --order "$order" \
        --check 500 --repeat 3 --json --quiet "${extra[@]}" >> "$raw"
    done
    "$bench" --backend cuda --n 1048576 --dist "$dist" --precision "$prec" --order "$order" \
      --repeat 1 --vs-direct --json --quiet >> "$raw"
  done
done
for dist in uniform rings; do
  "$bench" --backend cuda --n 1048576 --dist "$dist" --precision float --sweep-orders 2,3,4,5,6,7,8,9,10,11,12 \
    --check 2000 --repeat 7 --json --quiet >> "$orders"
  "$bench" --backend cuda --n 1048576 --dist "$dist" --precision double --sweep-orders 2,3,4,5,6,7,8,9,10,11,12,16 \
    --check 2000 --repeat 7 --json --quiet >> "$orders"
done
here=$(dirname "$0")
python3 "$here/bench_table.py" "$raw"
python3 "$here/bench_table.py" "$orders" --by-order
