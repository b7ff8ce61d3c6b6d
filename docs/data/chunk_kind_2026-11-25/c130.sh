#!/bin/bash
# c130: review change: k_corr reads its chunk's kind from the first target instead of a block vote: GPU twin tests;
# 60 steps prev vs new bitwise with tracers; leapfrog steps alternated
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_fmm_reg gpu_test_fmm gpu_test_vortex; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for cfg in "leapfrog 262144" "single_ring 4096" "headon 4096"; do set -- $cfg
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  timeout 60 $X --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$2_$v.csv > $R/bit/$1_$2_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/$1_$2_prev.csv | cut -d, -f1-20) <(grep -v "^#" $R/bit/$1_$2_new.csv | cut -d, -f1-20) && echo "$1 $2 tracers: columns 1-20 same" || echo "$1 $2: DIFF"
done > $R/bitwise.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  prof "lf60 $v" $X --headless --scene leapfrog --backend cuda --steps 60
done; done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
