#!/bin/bash
# session 2026-11-24b call 2: the level rule with the parallel-width floor (min_leaves = SMs): leaf rule against forced
# levels over 2^14..2^24 uniform and rings (solo), the two tracer scenes' step time, then every scene to t = 10 under MPS
# beside gpu_test_octree / gpu_test_fmm / gpu_test_vortex
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
bench() { timeout 60 $B/vortexfmm-bench --backend cuda --precision float --order 8 --repeat 5 --check 100 --json --quiet "$@" 2>/dev/null | tail -n 1; }
timeout 230 bash $B/rules.sh > $OUT/r/rules.jsonl 2>&1
echo "bench done $SECONDS s" > $OUT/r/time.txt
for s in leapfrog leapfrog_big; do for r in 1 2; do echo "== $s $r"; timeout 60 $B/vortexfmm --headless --scene $s --backend cuda --steps 40 2>&1 | grep -E "step time|far field per" | cut -c1-330; done; done > $OUT/r/steps.txt 2>&1
echo "steps done $SECONDS s" >> $OUT/r/time.txt
nvidia-cuda-mps-control -d && echo mps on
( for t in gpu_test_octree gpu_test_fmm gpu_test_vortex; do s=$SECONDS; timeout 250 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $OUT/r/tests.txt ) &
$B/exp.sh $B/lr6.txt 8 $((560 - SECONDS))
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
