#!/bin/bash
# c78: the issue-15 benchmarks with the L2P derivative kernel by degree (binaries of 01af103); sanitizers on k_l2p_deriv
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cd $R; cat $B/COMMIT > commit.txt
BF="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
BD="$B/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12"
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 60 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
for round in 1 2; do
 run "u20 float" $BF --n 1048576 --repeat 7 --check 1000
 run "r20 float" $BF --dist rings --n 1048576 --repeat 7 --check 1000
 run "u20 double" $BD --n 1048576 --repeat 5 --check 1000
done
run "u24 float" $BF --n 16777216 --repeat 3 --check 30
run "u20 float vs direct" $BF --n 1048576 --repeat 3 --check 300 --vs-direct
echo "bench done $SECONDS s" > time.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for pr in "float 8" "double 12" "float 6" "double 3"; do set -- $pr
 echo "== memcheck $1 p=$2" >> san.txt
 timeout 80 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision $1 --order $2 --quiet >> san.txt 2>&1; echo "rc=$?" >> san.txt
 echo "== racecheck k_l2p_deriv $1 p=$2" >> san.txt
 timeout 80 $CS --tool racecheck --kernel-name kns=k_l2p_deriv $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision $1 --order $2 --quiet >> san.txt 2>&1; echo "rc=$?" >> san.txt
done
echo "all $SECONDS s" >> time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
