#!/bin/bash
# session 2026-11-24b call 2: the pipelined dense M2L kernel
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
BN="$B/vortexfmm-bench --backend cuda --json --quiet"
for lv in 4 5; do for m in spec dense; do
  VX_FMM_SERIAL=1 VX_M2L=$m $BN --n 1048576 --precision float --order 8 --levels $lv --repeat 5 --check 300 >> $OUT/r/serial.jsonl 2>>$OUT/r/err.txt
done; done
(timeout 240 $B/gpu_test_m2l_spec; echo "rc $?") > $OUT/r/test_m2l.txt 2>&1
for rnd in 1 2; do for lv in 4 5; do for m in spec dense; do
  VX_M2L=$m $BN --n 1048576 --precision float --order 8 --levels $lv --repeat 5 --check 300 >> $OUT/r/b.jsonl 2>>$OUT/r/err.txt
done; done; done
for lv in 6 7; do for m in spec dense; do
  VX_M2L=$m $BN --n 1048576 --dist rings --precision float --order 8 --levels $lv --repeat 5 --check 300 >> $OUT/r/rings.jsonl 2>>$OUT/r/err.txt
done; done
for lv in 4 5; do for m in spec dense; do
  VX_M2L=$m $BN --n 1048576 --precision double --order 12 --levels $lv --repeat 3 --check 300 >> $OUT/r/double.jsonl 2>>$OUT/r/err.txt
done; done
for lv in 6; do for m in spec dense; do
  VX_M2L=$m $BN --n 16777216 --precision float --order 8 --levels $lv --repeat 3 --check 100 >> $OUT/r/big.jsonl 2>>$OUT/r/err.txt
done; done
cd $OUT && tar czf all.tgz r && rm -rf r
