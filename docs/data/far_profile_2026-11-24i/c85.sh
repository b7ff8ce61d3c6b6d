#!/bin/bash
# c85: after the review's mend (tf32_tensor_cores; the slot fill's tile): dense/spec/fmm GPU tests; bench rows with their fills
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_m2l_dense gpu_test_m2l_spec gpu_test_fmm; do s=$SECONDS; timeout 120 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
BF="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
BD="$B/vortexfmm-bench --backend cuda --json --quiet --precision double --order 12"
for a in "u20 float|$BF --n 1048576 --repeat 5 --check 300" "r20 double|$BD --dist rings --n 1048576 --repeat 3 --check 300"; do
 echo "== ${a%%|*}" >> $R/bench.txt; timeout 60 ${a#*|} >> $R/bench.txt 2>&1
done
timeout 60 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100 2>&1 | tail -3 > $R/steps.txt
cd $OUT && tar czf all.tgz r && rm -rf r
