#!/bin/bash
# session 2026-11-24b call 13: the dense M2L with 100 KB stages: its twin tests at every order, 2^24 and 2^22
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 330 bash -c '
B=.gpu/bin
(timeout 120 $B/gpu_test_m2l_dense; echo "rc $?") > $OUT/r/test_dense.txt 2>&1
$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8 --n 16777216 --repeat 3 --check 30 >> $OUT/r/b.jsonl
$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8 --n 4194304 --repeat 5 --check 100 >> $OUT/r/b.jsonl
(timeout 150 $B/gpu_test_m2l_spec; echo "rc $?") > $OUT/r/test_spec.txt 2>&1
' 2>>$OUT/r/err.txt
cd $OUT && tar czf all.tgz r && rm -rf r
