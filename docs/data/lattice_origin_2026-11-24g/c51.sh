#!/bin/bash
# session 2026-11-24g call 2: every scene to t = 10 with the lattice through the rings' mean centre (+ leapfrog at
# h = 0.015 and 1/60) under MPS beside gpu_test_vortex and gpu_test_launch
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
nvidia-cuda-mps-control -d && echo mps on > $OUT/r/time.txt
( for t in gpu_test_vortex gpu_test_launch; do s=$SECONDS; timeout 250 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $OUT/r/tests.txt ) &
$B/exp.sh $B/lr7.txt 9 $((540 - SECONDS))
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
