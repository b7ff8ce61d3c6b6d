#!/bin/bash
# c103: ncu on k_m2l_tc at level 5 of 2^20 uniform (float p = 8): warp states, scheduler, pipes, memory
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
NCU=/usr/local/cuda/bin/ncu
timeout 300 $NCU --kernel-name regex:k_m2l_tc --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats $B/vortexfmm-bench --backend cuda --precision float --order 8 --n 1048576 --repeat 1 --quiet > $R/ncu_l5.txt 2>&1
echo "rc=$?" >> $R/ncu_l5.txt
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
