#!/bin/bash
# session 2026-11-24f call 2: every scene on the CPU backend at reduced size to t = 10 (the vectorized pair loops,
# leaf size 256), and the CPU's leapfrog step on the 16-core host
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt; nproc >> $OUT/r/commit.txt; lscpu | grep -i "model name\|flags" | cut -c1-400 >> $OUT/r/commit.txt
for th in 2 16; do for r in 1 2; do echo "== threads $th round $r"; OMP_NUM_THREADS=$th timeout 60 $B/vortexfmm --headless --scene leapfrog --backend cpu --tracers 16384 --steps 5 2>&1 | grep -E "step time|far field per" | cut -c1-330; done; done > $OUT/r/cpu_steps.txt 2>&1
OMP_NUM_THREADS=2 timeout 60 $B/vortexfmm-bench --backend cpu --n 65536 --dist rings --kernel gauss --sigma 0.03 --precision float --repeat 1 --check 200 --levels 3 --json --quiet > $OUT/r/cpu_bench.jsonl 2>&1
echo "steps done $SECONDS s" > $OUT/r/time.txt
timeout -s INT $((565 - SECONDS)) bash scripts/cpu_long_runs.sh $B/vortexfmm $OUT/r/cpu > $OUT/r/cpu_runs.txt 2>&1
echo "cpu exit $? all $SECONDS s" >> $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
