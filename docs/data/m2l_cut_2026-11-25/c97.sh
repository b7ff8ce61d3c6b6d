#!/bin/bash
# c97: the M2L source-degree cut (VX_M2L_CUT): GPU twin tests; bench cut vs VX_M2L_CUT=0 alternated; steps; sanitizers
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for t in gpu_test_m2l_dense gpu_test_m2l_spec gpu_test_fmm gpu_test_accuracy; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in off cut; do
  E=X=1; [ $v = off ] && E=VX_M2L_CUT=0
  run "$v u20 float" $E $B/vortexfmm-bench $A --n 1048576 --repeat 7 --check 1000
  run "$v r20 float" $E $B/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 1000
  run "$v u24 float" $E $B/vortexfmm-bench $A --n 16777216 --repeat 3 --check 30
  run "$v u20 double" $E $B/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 5 --check 1000
  run "$v u22 float" $E $B/vortexfmm-bench $A --n 4194304 --repeat 5 --check 300
 done
done
run "cut u20 float vs-direct" $B/vortexfmm-bench $A --n 1048576 --repeat 3 --check 1000 --vs-direct
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -5 >> $P; }
for round in 1 2; do
 for v in off cut; do
  E=X=1; [ $v = off ] && E=VX_M2L_CUT=0
  prof "big $v" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf $v" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
  prof "big1080 $v" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 done
done
echo "steps $SECONDS s" >> $R/time.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for pr in "float 8 tc" "float 6 tc" "float 8 dense" "double 12 dense" "double 8 spec" "float 8 generic"; do set -- $pr
 echo "== memcheck $1 p=$2 VX_M2L=$3" >> $R/san.txt
 VX_M2L=$3 timeout 60 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision $1 --order $2 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
done
echo "== racecheck k_m2l_tc float p=6" >> $R/san.txt
VX_M2L=tc timeout 90 $CS --tool racecheck --kernel-name kns=k_m2l_tc $B/vortexfmm-bench --backend cuda --n 3000 --levels 3 --repeat 1 --precision float --order 6 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
echo "== racecheck k_m2l_dense float p=6" >> $R/san.txt
VX_M2L=dense timeout 90 $CS --tool racecheck --kernel-name kns=k_m2l_dense $B/vortexfmm-bench --backend cuda --n 3000 --levels 3 --repeat 1 --precision float --order 6 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
