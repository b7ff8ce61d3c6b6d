#!/bin/bash
# c88: k_p2p_fast with the last short row split over the sources: GPU tests, sanitizers, bench against f91851d (old/)
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cd $R; cat $B/COMMIT > commit.txt
for t in gpu_test_p2p_fast gpu_test_fmm; do timeout 200 $B/$t > $t.txt 2>&1; echo "rc=$?" >> $t.txt; done
echo "tests $SECONDS s" > time.txt
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 90 "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
for round in 1 2; do
 for v in old new; do
  BB=$B/vortexfmm-bench; [ $v = old ] && BB=$B/old/vortexfmm-bench
  run "$v u20 float" $BB --backend cuda --json --quiet --precision float --order 8 --n 1048576 --repeat 7 --check 1000
  run "$v r20 float" $BB --backend cuda --json --quiet --precision float --order 8 --dist rings --n 1048576 --repeat 7 --check 1000
  run "$v u24 float" $BB --backend cuda --json --quiet --precision float --order 8 --n 16777216 --repeat 3 --check 30
 done
done
for v in old new; do
  BB=$B/vortexfmm-bench; [ $v = old ] && BB=$B/old/vortexfmm-bench
  run "$v u20 double" $BB --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 5 --check 1000
  run "$v u22 float" $BB --backend cuda --json --quiet --precision float --order 8 --n 4194304 --repeat 5 --check 100
done
echo "bench $SECONDS s" >> time.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for pr in "float 8" "double 6"; do set -- $pr
 echo "== memcheck $1" >> san.txt
 timeout 60 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision $1 --order $2 --quiet >> san.txt 2>&1; echo "rc=$?" >> san.txt
 echo "== racecheck k_p2p_fast $1" >> san.txt
 timeout 60 $CS --tool racecheck --kernel-name kns=k_p2p_fast $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision $1 --order $2 --quiet >> san.txt 2>&1; echo "rc=$?" >> san.txt
done
echo "all $SECONDS s" >> time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
