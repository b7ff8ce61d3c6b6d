#!/bin/bash
# session 2026-11-24b call 6: leapfrog's impulse over ten units against the relaxation, the lattice and the drop threshold
# (float, tracers 0, 8 runs under MPS)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
nvidia-cuda-mps-control -d && echo mps on
$B/exp.sh $B/imp1.txt 8 420
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
