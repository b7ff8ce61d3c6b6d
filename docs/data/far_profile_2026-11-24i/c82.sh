#!/bin/bash
# c82: experiment: the tracers seeded in Morton order (vortexfmm_morton, VX_EXP_TRACER_MORTON=1, an uncommitted build of 1ebbb8f + a sort in vortex/scene.c) against index order (01af103's code, vortexfmm): step times
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 prof "big index" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 prof "big morton" VX_EXP_TRACER_MORTON=1 $B/vortexfmm_morton --headless --scene leapfrog_big --backend cuda --steps 100
 prof "big morton-bin-noenv" $B/vortexfmm_morton --headless --scene leapfrog_big --backend cuda --steps 100
 prof "lf index" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 prof "lf morton" VX_EXP_TRACER_MORTON=1 $B/vortexfmm_morton --headless --scene leapfrog --backend cuda --steps 60
done
for v in 0 1; do
 if [ $v = 1 ]; then E="VX_EXP_TRACER_MORTON=1"; X=$B/vortexfmm_morton; else E="X=1"; X=$B/vortexfmm; fi
 env $E /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,smsp__thread_inst_executed_per_inst_executed.ratio --print-summary per-kernel -k regex:"k_p2p|k_corr" $X --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big_$v.txt 2>&1
 env $E /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,smsp__thread_inst_executed_per_inst_executed.ratio --print-summary per-kernel -k regex:"k_p2p|k_corr" $X --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf_$v.txt 2>&1
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
