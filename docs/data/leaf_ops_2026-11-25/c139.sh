#!/bin/bash
# c139: the review's build (VX_P2M_WL parsed strictly, the twin tests' shared helpers in tests/test_twin_eval.h):
# every GPU twin test touched; bench 2^20 uniform and rings; leapfrog_big and leapfrog steps
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_p2p_fast gpu_test_leaf_ops gpu_test_fmm gpu_test_fmm_reg gpu_test_m2l_spec gpu_test_accuracy gpu_test_vortex; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
VX_P2M_WL=3 $B/new/vortexfmm-bench --backend cuda --n 1000 > $R/refused.txt 2>&1; echo "rc=$?" >> $R/refused.txt
VX_P2M_WL=x $B/new/vortexfmm-bench --backend cuda --n 1000 >> $R/refused.txt 2>&1; echo "rc=$?" >> $R/refused.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 run "u20" $B/new/vortexfmm-bench $A --n 1048576 --repeat 7 --check 300
 run "r20" $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 300
done
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 prof "big" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 prof "lf60" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
