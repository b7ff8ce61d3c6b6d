#!/bin/bash
# c127: the block sort of long leaves in two sizes (4 and 16 keys a thread): gpu_test_octree; 60 steps prev vs new
# bitwise with tracers; leapfrog_big and leapfrog steps and frames alternated; ncu of leapfrog_big
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
s=$SECONDS; timeout 150 $B/gpu_test_octree > $R/gpu_test_octree.txt 2>&1; echo "== gpu_test_octree exit $? wall $((SECONDS-s))s" > $R/tests.txt
for cfg in "leapfrog 262144" "leapfrog_big 1048576"; do set -- $cfg
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  timeout 60 $X --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$2_$v.csv > $R/bit/$1_$2_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/$1_$2_prev.csv | cut -d, -f1-24) <(grep -v "^#" $R/bit/$1_$2_new.csv | cut -d, -f1-24) && echo "$1 $2 tracers: columns 1-24 same" || echo "$1 $2: DIFF"
done > $R/bitwise.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  prof "big $v" $X --headless --scene leapfrog_big --backend cuda --steps 100
  prof "big1080 $v" $X --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 done
done
for v in prev new; do
 X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
 prof "lf1000 $v" $X --headless --scene leapfrog --backend cuda --steps 1000
 prof "lf1080 $v" $X --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
