#!/bin/bash
# c123 (HEAD): ncu detail of k_corr and k_p2p_fast<4,1> in leapfrog's first step (where a correction's time goes)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis --section SourceCounters"
timeout 200 $NCU $S --kernel-name regex:k_corr_f --launch-skip 1 --launch-count 2 $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 1 > $R/ncu_corr.txt 2>&1
echo "corr $SECONDS s" >> $R/time.txt
timeout 200 $NCU $S --kernel-name regex:k_p2p_fast --launch-skip 1 --launch-count 1 $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 1 > $R/ncu_p2p.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
