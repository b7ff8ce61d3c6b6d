#!/bin/bash
# c133: P2M a warp a leaf + L2P with the combine and (small leaves) its derivative expansions fused:
# twin tests; bench prev/new alternated; VX_L2P_FUSED=0 vs auto; scenes; ncu --set full of k_p2p_fast on rings; sass
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_leaf_ops gpu_test_fmm gpu_test_accuracy gpu_test_fmm_reg; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in prev new; do
  BB=$B/$v/vortexfmm-bench
  run "$v u20" $BB $A --n 1048576 --repeat 7 --check 300
  run "$v r20" $BB $A --dist rings --n 1048576 --repeat 7 --check 300
  run "$v u22" $BB $A --n 4194304 --repeat 3 --check 50
  run "$v r22" $BB $A --dist rings --n 4194304 --repeat 3 --check 50
  run "$v d20" $BB --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 3 --check 100
 done
 run "new unfused u20" VX_L2P_FUSED=0 $B/new/vortexfmm-bench $A --n 1048576 --repeat 7 --check 10
 run "new unfused r20" VX_L2P_FUSED=0 $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 10
 run "new fused r20" VX_L2P_FUSED=1 $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 10
done
for v in prev new; do run "$v u24" $B/$v/vortexfmm-bench $A --n 16777216 --repeat 3 --check 10; done
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in prev new; do
  prof "big $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "big1080 $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf60 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
  prof "lf1080 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
 done
done
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 200 $NCU -k regex:k_p2p_fast -s 1 -c 1 --set full --import-source no $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 1 --check 10 > $R/ncu_p2p_full.txt 2>&1
echo "ncu $SECONDS s" >> $R/time.txt
CUO=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump | head -1)
$CUO -sass -fun '_Z12k_p2p_fast_fILi0ELi2EEv10p2p_args_f' $B/new/vortexfmm-bench > $R/sass_p2p.txt 2>&1 || $CUO -sass $B/new/vortexfmm-bench 2>/dev/null | awk '/Function : .*k_p2p_fast_fILi0ELi2/{p=1} p{print} /Function : / && !/k_p2p_fast_fILi0ELi2/{if(p)exit}' > $R/sass_p2p.txt
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
