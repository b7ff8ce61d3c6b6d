#!/bin/bash
# c153: this session's code (COMMIT): every GPU test; the bench figures of issue 15; the scenes' steps and 1080p frames
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in $B/gpu_test_*; do n=$(basename $t); s=$SECONDS; timeout 200 $t > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 run "u20" $B/new/vortexfmm-bench $A --n 1048576 --repeat 7 --check 300
 run "r20" $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 300
done
run "u24" $B/new/vortexfmm-bench $A --n 16777216 --repeat 3 --check 10
run "d20" $B/new/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 3 --check 100
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do
 prof "big" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 prof "big1080" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
done
for round in 1 2; do
 prof "lf60" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 prof "lf1080" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
done
prof "big1080 1000 frames" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 1000 --size 1920x1080
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
