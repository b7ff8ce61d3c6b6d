#!/bin/bash
# c107: every scene on the CPU backend at reduced size to t = 10 (scripts/cpu_long_runs.sh), tolerance 10^-(3+p/4)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env $B/lib
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
timeout -s INT 560 bash scripts/cpu_long_runs.sh $B/vortexfmm $OUT/r/cpu > $OUT/r/cpu_runs.txt 2>&1
echo "cpu exit $? all $SECONDS s" >> $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
