#!/bin/bash
# c79: ncu detail (launch, occupancy, speed of light, warp state) on the scenes' heaviest kernels: k_p2p, k_corr, k_l2p, k_l2p_deriv, k_m2l_spec
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
N=/usr/local/cuda/bin/ncu
S="--section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section SourceCounters"
timeout 150 $N $S -k regex:"k_p2p|k_l2p|k_m2l_spec" -s 20 -c 5 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 2 > $R/ncu_big_detail.txt 2>&1
echo "big $SECONDS" >> $R/time.txt
timeout 150 $N $S -k regex:"k_corr|k_p2p" -s 20 -c 2 $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 2 > $R/ncu_lf_detail.txt 2>&1
echo "all $SECONDS" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
