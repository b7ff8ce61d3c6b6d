#!/bin/bash
# c92: k_l2p_spec (and 023c04c's P2P): GPU tests; bench old/new alternated; every scene 60 steps bitwise; leapfrog_big steps and 1080p; sanitizers
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_l2p_spec gpu_test_fmm gpu_test_p2p_fast; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for sc in leapfrog leapfrog_big single_ring headon oblique; do
 for v in old/vortexfmm vortexfmm; do
  tg=$(basename $(dirname $B/$v))_vx
  timeout 60 $B/$v --headless --quiet --scene $sc --backend cuda --tracers 4096 --steps 60 --diag-every 5 --diag $R/bit/${sc}_$tg.csv > $R/bit/${sc}_$tg.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/${sc}_old_vx.csv | cut -d, -f1-14) <(grep -v "^#" $R/bit/${sc}_bin_vx.csv | cut -d, -f1-14) && echo "$sc same" || echo "$sc DIFF"
done > $R/bitwise.txt
echo "tests+bit $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in old new base; do
  BB=$B/vortexfmm-bench; E=X=1; [ $v = old ] && BB=$B/old/vortexfmm-bench; [ $v = base ] && E=VX_L2P=base
  run "$v u20 float" $E $BB $A --n 1048576 --repeat 7 --check 1000
  run "$v r20 float" $E $BB $A --dist rings --n 1048576 --repeat 7 --check 1000
  run "$v u24 float" $E $BB $A --n 16777216 --repeat 3 --check 30
  run "$v u20 double" $E $BB --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 5 --check 1000
 done
done
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in old/vortexfmm vortexfmm; do
  prof "big $v" $B/$v --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf $v" $B/$v --headless --scene leapfrog --backend cuda --steps 60
  prof "big1080 $v" $B/$v --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 done
done
echo "steps $SECONDS s" >> $R/time.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for pr in "float 8" "double 12" "float 6"; do set -- $pr
 echo "== memcheck $1 p=$2" >> $R/san.txt
 timeout 60 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision $1 --order $2 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
 echo "== racecheck k_l2p_spec $1 p=$2" >> $R/san.txt
 timeout 60 $CS --tool racecheck --kernel-name kns=k_l2p_spec $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision $1 --order $2 --quiet >> $R/san.txt 2>&1; echo "rc=$?" >> $R/san.txt
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
