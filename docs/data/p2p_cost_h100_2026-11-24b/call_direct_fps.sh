#!/bin/bash
# session 2026-11-24 call 11: FMM against direct summation at 2^20 with this round's kernels; leapfrog_big's frame rate at 1080p
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
$B/vortexfmm-bench --backend cuda --n 1048576 --precision float --order 8 --repeat 3 --check 300 --vs-direct --json --quiet > $OUT/r/vs_direct.jsonl 2>&1
for r in 1 2; do $B/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080 2>&1 | grep -E "frame|fps" | tail -n 2; done > $OUT/r/big_fps.txt
cd $OUT && tar czf all.tgz r && rm -rf r
