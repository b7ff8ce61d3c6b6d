#!/bin/bash
# session 2026-11-24b call 6: the dense M2L fixed (unroll 1), its twin tests; tiles of 64 vs 128 targets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
(timeout 200 $B/gpu_test_m2l_dense; echo "rc $?") > $OUT/r/test_dense.txt 2>&1
for v in "" -T128; do
  BN="$B/vortexfmm-bench$v --backend cuda --json --quiet"
  for lv in 5; do for m in spec dense auto; do
    VX_FMM_SERIAL=1 VX_M2L=$m $BN --n 1048576 --precision float --order 8 --levels $lv --repeat 5 --check 100 >> $OUT/r/serial$v.jsonl 2>>$OUT/r/err.txt
  done; done
  for m in spec auto; do
    VX_M2L=$m $BN --n 16777216 --precision float --order 8 --repeat 3 --check 100 >> $OUT/r/big$v.jsonl 2>>$OUT/r/err.txt
  done
done
(timeout 300 $B/gpu_test_m2l_spec; echo "rc $?") > $OUT/r/test_spec.txt 2>&1
cd $OUT && tar czf all.tgz r && rm -rf r
