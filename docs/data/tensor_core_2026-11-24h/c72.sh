#!/bin/bash
# c72: the full-level rule (oct_params.full_deeper): 2^20 and 2^23 uniform auto against forced levels, rings unchanged;
# GPU tests; every scene to t = 10 (lr6, MPS)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
BF="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 60 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
for round in 1 2; do
 run "u20 auto" $BF --n 1048576 --repeat 7 --check 300
 run "u20 L4" $BF --n 1048576 --levels 4 --repeat 7 --check 300
 run "u20 L5" $BF --n 1048576 --levels 5 --repeat 7 --check 300
done
run "u23 auto" $BF --n 8388608 --repeat 3 --check 30
run "u23 L5" $BF --n 8388608 --levels 5 --repeat 3 --check 30
run "u23 L6" $BF --n 8388608 --levels 6 --repeat 3 --check 30
run "r20 auto" $BF --dist rings --n 1048576 --repeat 7 --check 300
run "u17 auto" $BF --n 131072 --repeat 7 --check 300
run "u24 auto" $BF --n 16777216 --repeat 3 --check 30
for t in gpu_test_cost gpu_test_octree gpu_test_fmm gpu_test_m2l_spec; do s=$SECONDS; timeout 90 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "bench+tests $SECONDS s" > $R/time.txt
cd $B/../..
nvidia-cuda-mps-control -d
LIM=$((530 - SECONDS)); [ $LIM -gt 300 ] && LIM=300
bash $B/exp.sh $B/lr6.txt 7 $LIM
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
