#!/bin/bash
# session 2026-11-24g call 5: leapfrog_big's breakdown with relaxation near 0.01: precision, substeps, order,
# its breakdown time (t = 10), under MPS
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
nvidia-cuda-mps-control -d && echo mps on > $OUT/r/time.txt
$B/exp.sh $B/lr10.txt 8 480
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
