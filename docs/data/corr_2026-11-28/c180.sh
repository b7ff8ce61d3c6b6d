#!/bin/bash
# c180 (H100): where k_corr's time goes (ncu sections on one step's corrections and P2P), and the
# default leapfrog's step time over the run (elements grow with the remeshing), binaries of fbb6b24
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section SchedulerStats --section LaunchStats --section SourceCounters --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
timeout 200 $NCU $S -k regex:'k_corr|k_p2p' -s 8 -c 4 $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 4 > $R/ncu_sections.txt 2>&1
timeout 120 $B/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 4 --diag $R/lf_t4.csv > $R/lf_t4.log 2>&1
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
