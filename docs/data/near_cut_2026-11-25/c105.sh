#!/bin/bash
# c105: the regularization tolerance 10^-(3+p/4) and the Gaussian's near field cut at r_c: GPU twin tests;
# scene steps old / old + VX_REG_TOL=1e-5 (the tolerance alone) / new, alternated; Gaussian bench old/new; sanitizer
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for t in gpu_test_fmm_reg gpu_test_p2p_fast gpu_test_fmm gpu_test_accuracy gpu_test_m2l_spec; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -5 >> $P; }
for round in 1 2; do
 for v in old tol new; do
  X=$B/vortexfmm; E=X=1; [ $v != new ] && X=$B/old/vortexfmm; [ $v = tol ] && E=VX_REG_TOL=1e-5
  prof "big $v" $E $X --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf $v" $E $X --headless --scene leapfrog --backend cuda --steps 60
 done
 for v in old new; do
  X=$B/vortexfmm; [ $v = old ] && X=$B/old/vortexfmm
  prof "big1080 $v" $X --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf1080 $v" $X --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
 done
done
echo "steps $SECONDS s" >> $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in old new; do
  BB=$B/vortexfmm-bench; [ $v = old ] && BB=$B/old/vortexfmm-bench
  run "$v r20 gauss 0.003" $BB $A --dist rings --kernel gauss --sigma 0.003 --n 1048576 --repeat 5 --check 1000
  run "$v r20 gauss 0.01" $BB $A --dist rings --kernel gauss --sigma 0.01 --n 1048576 --repeat 5 --check 1000
  run "$v u20 gauss 0.004" $BB $A --kernel gauss --sigma 0.004 --n 1048576 --repeat 5 --check 1000
  run "$v r20 gauss 0.01 novel" $BB $A --dist rings --kernel gauss --sigma 0.01 --n 1048576 --repeat 5 --check 1000 --no-gradient
  run "$v u20" $BB $A --n 1048576 --repeat 7 --check 1000
  run "$v r20" $BB $A --dist rings --n 1048576 --repeat 7 --check 1000
 done
done
echo "bench $SECONDS s" >> $R/time.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for pr in "float 8" "double 8"; do set -- $pr
 echo "== memcheck gauss $1 p=$2" >> $R/san.txt
 timeout 60 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --dist rings --kernel gauss --sigma 0.01 --repeat 1 --precision $1 --order $2 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
 echo "== memcheck gauss fast2 $1 p=$2" >> $R/san.txt
 VX_P2P=fast2 timeout 60 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --dist rings --kernel gauss --sigma 0.01 --repeat 1 --precision $1 --order $2 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
