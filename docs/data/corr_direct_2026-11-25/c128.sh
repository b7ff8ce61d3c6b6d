#!/bin/bash
# c128: k_corr without shared-memory tiles (each warp reads the queued sources where they lie): GPU twin tests; 60 steps
# prev vs new bitwise, with tracers; Gaussian bench, scene steps and frames, prev/new alternated; ncu of leapfrog
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_fmm_reg gpu_test_fmm gpu_test_accuracy gpu_test_vortex; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for cfg in "leapfrog 262144" "leapfrog 4096" "leapfrog_big 4096" "headon 4096" "oblique 4096" "single_ring 4096"; do set -- $cfg
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  timeout 60 $X --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$2_$v.csv > $R/bit/$1_$2_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/$1_$2_prev.csv | cut -d, -f1-20) <(grep -v "^#" $R/bit/$1_$2_new.csv | cut -d, -f1-20) && echo "$1 $2 tracers: columns 1-20 same" || echo "$1 $2: DIFF"
done > $R/bitwise.txt
echo "tests+bit $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in prev new; do
  BB=$B/vortexfmm-bench; [ $v = prev ] && BB=$B/prev/vortexfmm-bench
  run "$v r20 gauss 0.003" $BB $A --dist rings --kernel gauss --sigma 0.003 --n 1048576 --repeat 5 --check 1000
  run "$v r20 gauss 0.01" $BB $A --dist rings --kernel gauss --sigma 0.01 --n 1048576 --repeat 5 --check 1000
  run "$v u20 gauss 0.004" $BB $A --kernel gauss --sigma 0.004 --n 1048576 --repeat 5 --check 1000
 done
done
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  prof "lf60 $v" $X --headless --scene leapfrog --backend cuda --steps 60
  prof "lf1080 $v" $X --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
  prof "sr $v" $X --headless --scene single_ring --backend cuda --steps 60
  prof "big $v" $X --headless --scene leapfrog_big --backend cuda --steps 100
 done
done
for v in prev new; do
 X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
 prof "lf1000 $v" $X --headless --scene leapfrog --backend cuda --steps 1000
done
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 100 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
