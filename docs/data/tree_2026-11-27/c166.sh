#!/bin/bash
# c166 (the same H100, warm after c165): ncu of k_corr on leapfrog (launch 5 and 6: sections speed of
# light, occupancy, launch, scheduler, warp state, compute and memory workload), and the per-kernel
# summary of 3 steps; base binaries of c165 (a61e6c5)
export VX_ASSETS_DIR=$PWD/assets; H=$PWD/.gpu/h100; . $H/gpu-env $H/lib
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 240 $NCU -k regex:k_corr -s 4 -c 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis $H/base/vortexfmm --headless --scene leapfrog --backend cuda --steps 2 > $OUT/ncu_corr_lf.txt 2>&1
timeout 200 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $H/base/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $OUT/ncu_lf_sum.txt 2>&1
