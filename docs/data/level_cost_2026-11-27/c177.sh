#!/bin/bash
# c177 (H100): the final binaries (2937774's code): every GPU test; racecheck and memcheck on the new k_corr
# (its block scan in shared memory), float and double
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for prec in float double; do
 timeout 100 $CS --tool racecheck --kernel-name kns=k_corr $B/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 > $R/racecheck_$prec.txt 2>&1
 timeout 100 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved 0.05 > $R/memcheck_$prec.txt 2>&1
done
echo "sanitizers $SECONDS s" > $R/time.txt
for t in $B/gpu_test_*; do n=$(basename $t); s=$SECONDS; timeout 120 $t > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; [ $SECONDS -gt 420 ] && break; done > $R/tests.txt
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
