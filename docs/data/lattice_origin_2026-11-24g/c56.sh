#!/bin/bash
# session 2026-11-24g call 7: leapfrog_big at relaxation 0.01 with one more change each (stretching, correction, dt, remeshing, sigma):
# its breakdown time (t = 10), under MPS
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
nvidia-cuda-mps-control -d && echo mps on > $OUT/r/time.txt
$B/exp.sh $B/lr12.txt 8 500
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
