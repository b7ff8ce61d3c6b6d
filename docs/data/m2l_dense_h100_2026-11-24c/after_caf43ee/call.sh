#!/bin/bash
# session 2026-11-24b call 11: caf43ee (dense M2L under auto only in float p = 8): 2^24 float and 2^20 double p = 12 defaults, gpu_test_m2l_spec
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 300 bash -c '
B=.gpu/bin
$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8 --n 16777216 --repeat 3 --check 30 >> $OUT/r/b.jsonl
$B/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12 --n 1048576 --levels 5 --repeat 3 --check 30 >> $OUT/r/b.jsonl
(timeout 200 $B/gpu_test_m2l_spec; echo "rc $?") > $OUT/r/test_spec.txt 2>&1
' 2>>$OUT/r/err.txt
cd $OUT && tar czf all.tgz r && rm -rf r
