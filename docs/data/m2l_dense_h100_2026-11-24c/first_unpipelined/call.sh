#!/bin/bash
# session 2026-11-24b call 1: the dense M2L kernel: twin test, and spec vs dense at forced levels
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
(timeout 240 $B/gpu_test_m2l_spec; echo "rc $?") > $OUT/r/test_m2l.txt 2>&1 &
BN="$B/vortexfmm-bench --backend cuda --json --quiet"
for rnd in 1 2; do
  for lv in 4 5; do for m in spec dense; do
    echo "u f p8 L$lv $m" >> $OUT/r/tags.txt
    VX_M2L=$m $BN --n 1048576 --precision float --order 8 --levels $lv --repeat 5 --check 300 >> $OUT/r/b.jsonl 2>>$OUT/r/err.txt
  done; done
done
wait
for lv in 4 5; do for m in spec dense; do
  VX_FMM_SERIAL=1 VX_M2L=$m $BN --n 1048576 --precision float --order 8 --levels $lv --repeat 5 --check 300 >> $OUT/r/serial.jsonl 2>>$OUT/r/err.txt
done; done
for lv in 6 7; do for m in spec dense auto; do
  VX_M2L=$m $BN --n 1048576 --dist rings --precision float --order 8 --levels $lv --repeat 5 --check 300 >> $OUT/r/rings.jsonl 2>>$OUT/r/err.txt
done; done
for lv in 4 5; do for m in spec dense; do
  VX_M2L=$m $BN --n 1048576 --precision double --order 12 --levels $lv --repeat 3 --check 300 >> $OUT/r/double.jsonl 2>>$OUT/r/err.txt
done; done
for lv in 6 7; do for m in spec dense; do
  VX_M2L=$m $BN --n 16777216 --precision float --order 8 --levels $lv --repeat 3 --check 100 >> $OUT/r/big.jsonl 2>>$OUT/r/err.txt
done; done
(timeout 200 $B/gpu_test_fmm; echo "rc $?") > $OUT/r/test_fmm.txt 2>&1
cd $OUT && tar czf all.tgz r && rm -rf r
