#!/bin/bash
# c102: k_m2l_tc split over parts at the coarse full levels: twin tests, bench old/new alternated, scenes 60 steps bitwise, sanitizers
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_m2l_dense gpu_test_m2l_spec gpu_test_fmm gpu_test_accuracy; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for sc in leapfrog leapfrog_big single_ring headon oblique; do
 for v in old/vortexfmm vortexfmm; do
  tg=$(basename $(dirname $B/$v))_vx
  timeout 60 $B/$v --headless --quiet --scene $sc --backend cuda --tracers 4096 --steps 60 --diag-every 5 --diag $R/bit/${sc}_$tg.csv > $R/bit/${sc}_$tg.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/${sc}_old_vx.csv | cut -d, -f1-24) <(grep -v "^#" $R/bit/${sc}_bin_vx.csv | cut -d, -f1-24) && echo "$sc same" || echo "$sc DIFF"
done > $R/bitwise.txt
echo "tests+bit $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in old new; do
  BB=$B/vortexfmm-bench; [ $v = old ] && BB=$B/old/vortexfmm-bench
  run "$v u20" $BB $A --n 1048576 --repeat 7 --check 1000
  run "$v r20" $BB $A --dist rings --n 1048576 --repeat 7 --check 1000
  run "$v u24" $BB $A --n 16777216 --repeat 3 --check 30
  run "$v u22" $BB $A --n 4194304 --repeat 5 --check 300
  run "$v u23" $BB $A --n 8388608 --repeat 3 --check 100
  run "$v u18" $BB $A --n 262144 --repeat 9 --check 1000
  run "$v r22" $BB $A --dist rings --n 4194304 --repeat 5 --check 300
 done
done
echo "bench $SECONDS s" >> $R/time.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for pr in "float 8" "float 6" "float 12"; do set -- $pr
 echo "== memcheck VX_M2L=tc $1 p=$2 levels 4" >> $R/san.txt
 VX_M2L=tc timeout 90 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --levels 4 --repeat 1 --precision $1 --order $2 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
done
echo "== racecheck k_m2l_tc split, float p=6" >> $R/san.txt
VX_M2L=tc timeout 120 $CS --tool racecheck --kernel-name kns=k_m2l_tc $B/vortexfmm-bench --backend cuda --n 3000 --levels 3 --repeat 1 --precision float --order 6 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
