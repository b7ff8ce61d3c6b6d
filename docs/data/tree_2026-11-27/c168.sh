#!/bin/bash
# c168: where a sub-millisecond evaluation's time goes with the automatic level against a forced one
# (issue 12's level table: 2^14 rings, automatic level 3 at 0.501 ms against 0.412 forced, c157):
# the bench's medians, then nsys's API and kernel summaries and the GPU trace of both
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
B="$H/base/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8 --dist rings --n 16384"
for round in 1 2; do for lv in 0 3; do echo "== levels $lv" >> $R/bench.txt; $B --repeat 21 --levels $lv >> $R/bench.txt 2>&1; done; done
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $NSYS" > $R/nsys.txt
for lv in 0 3; do
 timeout 120 $NSYS profile -o $OUT/p$lv --force-overwrite true $B --repeat 21 --levels $lv > /dev/null 2>&1
 timeout 120 $NSYS stats -r cuda_api_sum,cuda_gpu_kern_sum -f csv $OUT/p$lv.nsys-rep > $R/nsys_sum_L$lv.txt 2>&1
 timeout 120 $NSYS stats -r cuda_gpu_trace,cuda_api_trace -f csv $OUT/p$lv.nsys-rep > $R/nsys_trace_L$lv.csv 2>&1
done
rm -f $OUT/p*.nsys-rep $OUT/p*.sqlite
cd $OUT && tar czf all.tgz r && rm -rf r
