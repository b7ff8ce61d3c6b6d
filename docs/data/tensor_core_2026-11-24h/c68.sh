#!/bin/bash
# c68: the issue-15 benchmarks with the final binaries; compute-sanitizer on k_m2l_tc and k_p2m_spec
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cd $R; cat $B/COMMIT > commit.txt
BF="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
BD="$B/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12"
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 60 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
for round in 1 2; do
 run "u20 float" $BF --n 1048576 --repeat 7 --check 1000
 run "u20 float L5" $BF --n 1048576 --levels 5 --repeat 7 --check 1000
 run "r20 float" $BF --dist rings --n 1048576 --repeat 7 --check 1000
 run "u20 double" $BD --n 1048576 --repeat 5 --check 1000
 run "r20 double" $BD --dist rings --n 1048576 --repeat 5 --check 1000
done
run "u22 float" $BF --n 4194304 --repeat 5 --check 100
run "u24 float" $BF --n 16777216 --repeat 3 --check 30
run "u20 float vs direct" $BF --n 1048576 --repeat 3 --check 300 --vs-direct
for r in 1 2; do
 echo "leapfrog_big: $(timeout 60 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100 2>&1 | grep 'step time' | cut -c1-230)"
 echo "leapfrog: $(timeout 60 $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 2>&1 | grep 'step time' | cut -c1-230)"
 echo "leapfrog float: $(timeout 60 $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 --precision float 2>&1 | grep 'step time' | cut -c1-230)"
 timeout 60 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080 2>&1 | grep -E "frame time"
done > steps.txt
echo "bench done $SECONDS s" > time.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for o in 6 8 12; do
 echo "== memcheck tc float p=$o" >> san.txt
 VX_M2L=tc timeout 80 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision float --order $o --quiet >> san.txt 2>&1; echo "rc=$?" >> san.txt
done
for o in 6 12; do
 echo "== memcheck double p=$o (k_p2m_spec)" >> san.txt
 timeout 80 $CS --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision double --order $o --quiet >> san.txt 2>&1; echo "rc=$?" >> san.txt
done
echo "== racecheck tc float p=8" >> san.txt
VX_M2L=tc timeout 100 $CS --tool racecheck $B/vortexfmm-bench --backend cuda --n 4000 --levels 3 --leaf 64 --repeat 1 --precision float --order 8 --quiet >> san.txt 2>&1; echo "rc=$?" >> san.txt
echo "all $SECONDS s" >> time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
