#!/bin/bash
# c117: the float Gaussian pair on the GPU by the CPU's formula (A&S erf reusing __expf, 9 series terms): twin tests;
# Gaussian bench old/new; scene steps and frames old/new alternated; 60 steps of the scenes old vs new (diagnostics)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for t in gpu_test_fmm_reg gpu_test_p2p_fast gpu_test_fmm gpu_test_accuracy gpu_test_vortex; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in old new; do
  BB=$B/vortexfmm-bench; [ $v = old ] && BB=$B/old/vortexfmm-bench
  run "$v r20 gauss 0.003" $BB $A --dist rings --kernel gauss --sigma 0.003 --n 1048576 --repeat 5 --check 1000
  run "$v r20 gauss 0.01" $BB $A --dist rings --kernel gauss --sigma 0.01 --n 1048576 --repeat 5 --check 1000
  run "$v u20 gauss 0.004" $BB $A --kernel gauss --sigma 0.004 --n 1048576 --repeat 5 --check 1000
 done
done
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -5 >> $P; }
for round in 1 2; do
 for v in old new; do
  X=$B/vortexfmm; [ $v = old ] && X=$B/old/vortexfmm
  prof "big $v" $X --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60 $v" $X --headless --scene leapfrog --backend cuda --steps 60
  prof "big1080 $v" $X --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf1080 $v" $X --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
 done
done
for v in old new; do
 X=$B/vortexfmm; [ $v = old ] && X=$B/old/vortexfmm
 prof "lf1000 $v" $X --headless --scene leapfrog --backend cuda --steps 1000
done
echo "steps $SECONDS s" >> $R/time.txt
for sc in leapfrog leapfrog_big single_ring headon oblique; do
 for v in old new; do
  X=$B/vortexfmm; [ $v = old ] && X=$B/old/vortexfmm
  timeout 60 $X --headless --quiet --scene $sc --backend cuda --tracers 0 --steps 60 --diag-every 5 --diag $R/bit/${sc}_$v.csv > $R/bit/${sc}_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/${sc}_old.csv | cut -d, -f1-16) <(grep -v "^#" $R/bit/${sc}_new.csv | cut -d, -f1-16) && echo "$sc same" || echo "$sc differs"
done > $R/bitwise.txt
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
