#!/bin/bash
# session 2026-11-25 call 1: the blow-up rule with the energy watch (ab89e2b): every scene to t = 10 on the GPU (MPS),
# two leapfrog_big variants (lcfl 0.5, dt 1e-4) to see where they break down, gpu_test_vortex and gpu_test_launch beside
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
nvidia-cuda-mps-control -d && echo mps on
( for t in gpu_test_vortex gpu_test_launch; do s=$SECONDS; timeout 200 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $OUT/r/tests.txt ) &
$B/exp.sh $B/lr8.txt 9 470
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
