#!/bin/bash
# session 2026-11-24b call 1: the SFS model on leapfrog_big (tracers 0, to t = 10 or the call's limit), dynamic procedure
# (VX_SFS_DYN=a_test) and constant coefficients, against the shipped scene; the single ring with the dynamic model
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
nvidia-cuda-mps-control -d && echo mps on
$B/exp2.sh $B/sfs1.txt 8 500
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/r/time.txt
mv $OUT/runs $OUT/ckpt $OUT/r/; cd $OUT && tar czf all.tgz r && rm -rf r
