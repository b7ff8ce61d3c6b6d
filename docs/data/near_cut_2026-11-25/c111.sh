#!/bin/bash
# c111: the passive rule (velocity-only targets beside gradient targets at 10^-(1+p/4); calls without gradients at 10^-(3+p/4)): twin tests;
# every scene 60 steps with 4096 tracers prev (f35ac30) vs new; leapfrog steps and 1080p frames
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_fmm_reg gpu_test_fmm gpu_test_accuracy gpu_test_vortex; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for sc in leapfrog leapfrog_big single_ring headon oblique; do
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  timeout 60 $X --headless --quiet --scene $sc --backend cuda --tracers 4096 --steps 60 --diag-every 5 --diag $R/bit/${sc}_$v.csv > $R/bit/${sc}_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/${sc}_prev.csv | cut -d, -f1-24) <(grep -v "^#" $R/bit/${sc}_new.csv | cut -d, -f1-24) && echo "$sc same" || echo "$sc DIFF"
done > $R/bitwise.txt
for sc in leapfrog single_ring headon; do
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  timeout 60 $X --headless --quiet --scene $sc --backend cuda --tracers 0 --steps 60 --diag-every 5 --diag $R/bit/${sc}_t0_$v.csv > $R/bit/${sc}_t0_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/${sc}_t0_prev.csv | cut -d, -f1-16) <(grep -v "^#" $R/bit/${sc}_t0_new.csv | cut -d, -f1-16) && echo "$sc tracers 0: columns 1-16 same" || echo "$sc tracers 0: DIFF"
done >> $R/bitwise.txt
echo "tests+bit $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -5 >> $P; }
for round in 1; do
 for v in prev new; do
  X=$B/vortexfmm; [ $v = prev ] && X=$B/prev/vortexfmm
  prof "lf60 $v" $X --headless --scene leapfrog --backend cuda --steps 60
  prof "lf1080 $v" $X --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
  prof "big100 $v" $X --headless --scene leapfrog_big --backend cuda --steps 100
 done
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
