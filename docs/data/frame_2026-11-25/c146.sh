#!/bin/bash
# c146: compute-sanitizer memcheck + racecheck on the leaf-operator kernels changed 2026-11-25 (k_p2m_spec a
# warp a leaf, the fused k_l2p, k_p2p_fast<K,1> unrolled 8); leapfrog_big's frame at 1080p with the rest split
# (99d4b8e), glFinish per frame or not (VX_EXP_NOFINISH, an experiment build); nsys if the machine has it
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
echo "cs=$CS" > $R/tools.txt; ls /usr/local/cuda*/bin /opt/nvidia 2>&1 | grep -i nsys >> $R/tools.txt; which nsys >> $R/tools.txt 2>&1
S=$R/san; mkdir -p $S
BB="$B/new/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --quiet --check 50"
san() { tag=$1; shift; ( timeout -s INT 240 "$@" > $S/$tag.txt 2>&1; echo "rc=$?" >> $S/$tag.txt ) ; }
# memcheck: whole evaluations (fused L2P at <= 64 targets a leaf, unfused forced, P2M at 1 and 8 warps a leaf)
( san mem_f8 $CS --tool memcheck $BB --precision float --order 8
  san mem_d12 $CS --tool memcheck $BB --precision double --order 12
  san mem_f8_gauss $CS --tool memcheck $BB --precision float --order 8 --kernel gauss --sigma 0.02
  san mem_f6_nograd env VX_L2P_FUSED=0 VX_P2M_WL=8 $CS --tool memcheck $BB --precision float --order 6 --no-gradient
  san mem_d5_wl1 env VX_P2M_WL=1 $CS --tool memcheck $BB --precision double --order 5
  san mem_leaf_ops $CS --tool memcheck $B/gpu_test_leaf_ops ) &
m1=$!
( for k in k_p2m_spec k_l2p k_p2p_fast; do
    san race_${k}_f8 $CS --tool racecheck --kernel-name kns=$k $BB --precision float --order 8
    san race_${k}_d12 $CS --tool racecheck --kernel-name kns=$k $BB --precision double --order 12
  done
  san race_k_p2p_fast_gauss $CS --tool racecheck --kernel-name kns=k_p2p_fast $BB --precision float --order 8 --kernel gauss --sigma 0.02
  san race_p2m_wl8 env VX_P2M_WL=8 VX_L2P_FUSED=0 $CS --tool racecheck --kernel-name kns=k_p2m_spec $BB --precision float --order 6 ) &
m2=$!
wait $m1 $m2
echo "sanitizers $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -3 >> $P; }
for round in 1 2; do
 prof "big1080" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 prof "big1080 nofinish" VX_EXP_NOFINISH=1 $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 prof "lf1080" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
 prof "lf1080 nofinish" VX_EXP_NOFINISH=1 $B/new/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
done
prof "big steps" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
NS=$(which nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
if [ -n "$NS" ]; then
 timeout 150 $NS profile -o $R/big1080 --trace=cuda,opengl,osrt --force-overwrite true $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 60 --size 1920x1080 > $R/nsys.txt 2>&1
 timeout 100 $NS stats --report cuda_api_sum,osrt_sum,cuda_gpu_kern_sum $R/big1080.nsys-rep > $R/nsys_stats.txt 2>&1
 rm -f $R/big1080.sqlite
fi
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
