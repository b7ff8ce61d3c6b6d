#!/bin/bash
# c145: the session's last code (697fb0c): the GPU twin tests; bench 2^20 uniform / rings, 2^24, double, Gaussian rings;
# the scenes' steps and frames
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_p2p_fast gpu_test_fmm gpu_test_leaf_ops gpu_test_fmm_reg gpu_test_accuracy gpu_test_vortex; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 run "u20" $B/new/vortexfmm-bench $A --n 1048576 --repeat 7 --check 300
 run "r20" $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 300
done
run "u24" $B/new/vortexfmm-bench $A --n 16777216 --repeat 3 --check 10
run "d20" $B/new/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 3 --check 100
run "gr20" $B/new/vortexfmm-bench $A --dist rings --n 1048576 --kernel gauss --sigma 0.003 --repeat 5 --check 100
echo "bench $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 prof "big" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 prof "big1080" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 prof "lf60" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 prof "lf1080" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
done
prof "lf1000" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 1000
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
