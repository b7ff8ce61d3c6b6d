#!/bin/bash
# c162: after the CPU correction box grown by the kept tree's move (fmm_corr.slack): every GPU test;
# racecheck on k_moved
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_fmm_keep gpu_test_vortex gpu_test_launch; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
CS=/usr/local/cuda/bin/compute-sanitizer
timeout 60 $CS --tool racecheck --kernel-name kns=k_moved $B/new/vortexfmm-bench --backend cuda --n 20000 --precision float --repeat 1 --moved 0.05 --keep-move 1 --quiet > $R/racecheck_moved.txt 2>&1; echo "exit $?" >> $R/racecheck_moved.txt
timeout 60 $CS --tool racecheck --kernel-name kns=k_moved $B/new/vortexfmm-bench --backend cuda --n 20000 --precision double --repeat 1 --moved 0.05 --keep-move 1 --quiet > $R/racecheck_moved_d.txt 2>&1; echo "exit $?" >> $R/racecheck_moved_d.txt
for t in $B/gpu_test_*; do n=$(basename $t); case $n in gpu_test_fmm_keep|gpu_test_vortex|gpu_test_launch) continue;; esac; s=$SECONDS; timeout 200 $t > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; done >> $R/tests.txt
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
