#!/bin/bash
# c135: ex2/rcp .approx.ftz in the float Gaussian: tests; bitwise mid (c134's new) vs new with tracers; Gaussian bench
# and scenes mid/new alternated, leapfrog_big with VX_P2P=fast2; ncu per kernel (leapfrog_big, 2^20 rings)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_p2p_fast gpu_test_leaf_ops gpu_test_fmm gpu_test_accuracy gpu_test_fmm_reg; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
for cfg in "leapfrog 262144" "leapfrog_big 1048576" "headon 4096" "oblique 4096" "single_ring 4096"; do set -- $cfg
 for v in mid new; do
  timeout 60 $B/$v/vortexfmm --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$v.csv > $R/bit/$1_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/$1_mid.csv | cut -d, -f1-20) <(grep -v "^#" $R/bit/$1_new.csv | cut -d, -f1-20) && echo "$1 mid vs new: columns 1-20 same" || echo "$1 mid vs new: DIFF"
done > $R/bitwise.txt
echo "bit $SECONDS s" >> $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in mid new; do
  run "$v gr20" $B/$v/vortexfmm-bench $A --dist rings --n 1048576 --kernel gauss --sigma 0.003 --repeat 5 --check 100
  run "$v gu20" $B/$v/vortexfmm-bench $A --n 1048576 --kernel gauss --sigma 0.004 --repeat 5 --check 100
 done
done
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in mid new; do
  prof "big $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
  prof "sr60 $v" $B/$v/vortexfmm --headless --scene single_ring --backend cuda --steps 60
 done
 prof "big fast2" VX_P2P=fast2 $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
done
prof "big1080 new" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
prof "lf1080 new" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
prof "lf1000 new" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 1000
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big.txt 2>&1
timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 2 --check 10 > $R/ncu_rings.txt 2>&1
timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/new/vortexfmm-bench $A --n 1048576 --repeat 2 --check 10 > $R/ncu_uniform.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
