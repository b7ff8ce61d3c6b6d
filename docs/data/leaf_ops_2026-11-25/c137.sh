#!/bin/bash
# c137: FMM vs direct at 2^20 (float p = 8) in one run; ncu --set full of k_p2p_fast<4,1> in leapfrog_big (the tracers' Gaussian P2P)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
A="--backend cuda --json --quiet --precision float --order 8"
timeout 120 $B/new/vortexfmm-bench $A --n 1048576 --repeat 3 --check 300 --vs-direct > $R/vs_direct.txt 2>&1
echo "direct $SECONDS s" > $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 200 $NCU -k regex:k_p2p_fast -s 8 -c 1 --set full --import-source no $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_p2p_big_full.txt 2>&1
timeout 200 $NCU -k regex:k_p2p_fast -s 8 -c 1 --page raw --metrics smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_branch_resolving,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_tex_throttle,smsp__pcsamp_sample_count $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_p2p_big_stalls.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
