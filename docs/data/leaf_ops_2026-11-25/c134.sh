#!/bin/bash
# c134: rsqrt.approx.ftz and a select in the pair: tests; bitwise mid (c133's new) vs new, prev vs mid with tracers;
# bench mid/new alternated; scenes prev/mid/new; sass of k_p2p_fast<0,2>
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_p2p_fast gpu_test_leaf_ops gpu_test_fmm gpu_test_accuracy gpu_test_fmm_reg gpu_test_vortex; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
for cfg in "leapfrog 262144" "leapfrog_big 1048576" "headon 4096" "oblique 4096" "single_ring 4096"; do set -- $cfg
 for v in prev mid new; do
  timeout 60 $B/$v/vortexfmm --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$v.csv > $R/bit/$1_$v.log 2>&1
 done
 for pair in "prev mid" "mid new"; do set -- $1 $pair
  cmp -s <(grep -v "^#" $R/bit/$1_$2.csv | cut -d, -f1-20) <(grep -v "^#" $R/bit/$1_$3.csv | cut -d, -f1-20) && echo "$1 $2 vs $3: columns 1-20 same" || echo "$1 $2 vs $3: DIFF"
 done
done > $R/bitwise.txt
echo "bit $SECONDS s" >> $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in mid new; do
  BB=$B/$v/vortexfmm-bench
  run "$v u20" $BB $A --n 1048576 --repeat 7 --check 300
  run "$v r20" $BB $A --dist rings --n 1048576 --repeat 7 --check 300
  run "$v r22" $BB $A --dist rings --n 4194304 --repeat 3 --check 50
  run "$v gr20" $BB $A --dist rings --n 1048576 --kernel gauss --sigma 0.003 --repeat 5 --check 100
 done
done
for v in mid new; do run "$v u24" $B/$v/vortexfmm-bench $A --n 16777216 --repeat 3 --check 10; done
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in mid new; do
  prof "big $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "big1080 $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf60 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
done
echo "steps $SECONDS s" >> $R/time.txt
CUO=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump | head -1)
$CUO -sass -fun '_Z12k_p2p_fast_fILi0ELi2EEv10p2p_args_f' $B/new/vortexfmm-bench > $R/sass_p2p.txt 2>&1
$CUO -sass -fun '_Z12k_p2p_fast_fILi4ELi1EEv10p2p_args_f' $B/new/vortexfmm-bench > $R/sass_p2p_gauss.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
