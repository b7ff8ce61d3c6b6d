#!/bin/bash
# c171 (H100): the cost model's CUDA float table, p = 8: --calibrate (whole evaluations of uniform and
# rings sets, 2^14 ... 2^22, the leaf-size level and one either side, gradient on and off); the device
# statistics (one launch a level) against the host's (gpu_test_cost); a first look at the choice
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
BB="$H/base/vortexfmm-bench --backend cuda --precision float --order 8"
timeout 300 $BB --calibrate --repeat 5 > $R/cost_cuda.txt 2> $R/calibrate.log
echo "calibrated $SECONDS s" > $R/time.txt
timeout 120 $H/base/gpu_test_cost > $R/gpu_test_cost.txt 2>&1; echo "exit $?" >> $R/gpu_test_cost.txt
B="$BB --json --quiet --repeat 7"
for e in 14 15 16 17 20 24; do for d in uniform rings; do n=$((1 << e))
 echo "== $e $d leaf" >> $R/first.txt; timeout 60 $B --dist $d --n $n --level-rule leaf >> $R/first.txt 2>&1
 echo "== $e $d cost" >> $R/first.txt; timeout 60 $B --dist $d --n $n --level-rule cost --cost-file $R/cost_cuda.txt >> $R/first.txt 2>&1
done; done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
