#!/bin/bash
# c198 (H100): gpu_test_fmm with its streams' priorities check (240c8dc + the test).
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; nvidia-smi -L > $R/device.txt
timeout 200 $H/exp/gpu_test_fmm > $R/gpu_test_fmm.txt 2>&1; echo "exit $?" >> $R/gpu_test_fmm.txt
cd $OUT && tar czf all.tgz r && rm -rf r
