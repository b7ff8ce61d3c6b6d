#!/bin/bash
# session 2026-11-24 call 5: the P2P default and the float leapfrog (solo), then every GPU test beside every scene to t = 10 (MPS)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
for r in 1 2; do
  $B/vortexfmm-bench --backend cuda --n 1048576 --precision float --order 8 --repeat 5 --check 300 --json --quiet 2>&1 | tail -n 1
  VX_P2P=base $B/vortexfmm-bench --backend cuda --n 1048576 --precision float --order 8 --repeat 5 --check 300 --json --quiet 2>&1 | tail -n 1
done > $OUT/r/p2p_default.jsonl
for r in 1 2; do for p in float double; do
  echo "leapfrog $p: $($B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 --precision $p 2>&1 | grep 'step time' | cut -c1-220)"
done; done > $OUT/r/steps.txt
echo "solo done $SECONDS s"
nvidia-cuda-mps-control -d && echo mps on
( for t in $B/gpu_test_*; do s=$SECONDS; timeout 200 $t > $OUT/r/$(basename $t).txt 2>&1; echo "== $(basename $t) exit $? wall $((SECONDS-s))s"; done > $OUT/r/tests.txt ) &
$B/exp.sh $B/lr6.txt 7 $((585 - SECONDS))
wait
echo quit | nvidia-cuda-mps-control; sleep 1
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r && ls -la $OUT
