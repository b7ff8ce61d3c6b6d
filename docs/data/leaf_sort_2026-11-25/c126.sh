#!/bin/bash
# c126: leaves of 257..4096 targets sorted by one block (cub::BlockRadixSort) instead of CUB's segmented sort:
# gpu_test_octree; 60 steps prev vs new bitwise with tracers; steps, frames and bench prev/new alternated; ncu leapfrog_big
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_octree gpu_test_fmm; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for cfg in "leapfrog 262144" "leapfrog_big 1048576" "headon 4096" "oblique 4096" "single_ring 4096"; do set -- $cfg
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  timeout 60 $X --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$2_$v.csv > $R/bit/$1_$2_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/$1_$2_prev.csv | cut -d, -f1-24) <(grep -v "^#" $R/bit/$1_$2_new.csv | cut -d, -f1-24) && echo "$1 $2 tracers: columns 1-24 same" || echo "$1 $2: DIFF"
done > $R/bitwise.txt
echo "tests+bit $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  prof "big $v" $X --headless --scene leapfrog_big --backend cuda --steps 100
  prof "big1080 $v" $X --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf60 $v" $X --headless --scene leapfrog --backend cuda --steps 60
  prof "lf1080 $v" $X --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
 done
done
echo "steps $SECONDS s" >> $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in prev new; do
  BB=$B/vortexfmm-bench; [ $v = prev ] && BB=$B/prev/vortexfmm-bench
  run "$v u20" $BB $A --n 1048576 --repeat 5 --check 500
  run "$v r20" $BB $A --dist rings --n 1048576 --repeat 5 --check 500
  run "$v r22" $BB $A --dist rings --n 4194304 --repeat 3 --check 100
 done
done
echo "bench $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
