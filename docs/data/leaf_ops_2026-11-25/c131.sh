#!/bin/bash
# c131: where 2^20 uniform / rings and leapfrog_big spend: ncu per-kernel, serial phases, k_p2p_fast detail on rings
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
A="--backend cuda --json --quiet --precision float --order 8"
for d in uniform rings; do
 timeout 60 $B/vortexfmm-bench $A --dist $d --n 1048576 --repeat 5 --check 200 > $R/bench_$d.txt 2>&1
 VX_FMM_SERIAL=1 timeout 60 $B/vortexfmm-bench $A --dist $d --n 1048576 --repeat 5 --check 200 > $R/serial_$d.txt 2>&1
 timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm-bench $A --dist $d --n 1048576 --repeat 2 --check 10 > $R/ncu_$d.txt 2>&1
done
echo "ncu sums $SECONDS s" > $R/time.txt
timeout 150 $NCU -k regex:k_p2p_fast -s 1 -c 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis $B/vortexfmm-bench $A --dist rings --n 1048576 --repeat 1 --check 10 > $R/ncu_p2p_rings.txt 2>&1
echo "ncu p2p $SECONDS s" >> $R/time.txt
timeout 150 $NCU -k regex:k_l2p -s 2 -c 2 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis $B/vortexfmm-bench $A --dist uniform --n 1048576 --repeat 1 --check 10 > $R/ncu_l2p_u.txt 2>&1
timeout 150 $NCU -k regex:k_p2m -s 1 -c 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis $B/vortexfmm-bench $A --dist uniform --n 1048576 --repeat 1 --check 10 > $R/ncu_p2m_u.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
