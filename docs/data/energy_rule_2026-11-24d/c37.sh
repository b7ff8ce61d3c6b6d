#!/bin/bash
# session 2026-11-25 call 3: four leapfrog_big time-step variants under MPS (no sanitizer beside them this time)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
nvidia-cuda-mps-control -d && echo mps on
$B/exp.sh $B/lr9.txt 4 520
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt
cd $OUT && tar czf all.tgz r && rm -rf r
