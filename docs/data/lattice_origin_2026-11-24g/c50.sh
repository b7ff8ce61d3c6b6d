#!/bin/bash
# session 2026-11-24g call 1: stream priorities A/B (VX_FMM_PRIORITY none|far|near) on the bench and leapfrog_big, then every
# scene to t = 10 with the lattice anchored on the first ring's centre (+ leapfrog at h = 0.015 and 1/60) under MPS beside
# gpu_test_vortex
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
bench() { timeout 60 $B/vortexfmm-bench --backend cuda --json --quiet "$@" 2>/dev/null | tail -n 1; }
for r in 1 2; do for p in none far near; do
  export VX_FMM_PRIORITY=$p
  echo "== $p uniform"; bench --n 1048576 --precision float --order 8 --repeat 7 --check 50
  echo "== $p double"; bench --n 1048576 --precision double --order 12 --repeat 5 --check 50
  echo "== $p rings"; bench --n 1048576 --dist rings --precision float --order 8 --repeat 7 --check 50
  if [ $r = 1 ]; then echo "== $p 2^24"; bench --n 16777216 --precision float --order 8 --repeat 3 --check 10; fi
  echo "== $p leapfrog_big"; timeout 60 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 40 2>&1 | grep -E "step time" | cut -c1-200
done; done > $OUT/r/prio.txt 2>&1
unset VX_FMM_PRIORITY
echo "prio done $SECONDS s" > $OUT/r/time.txt
nvidia-cuda-mps-control -d && echo mps on >> $OUT/r/time.txt
( s=$SECONDS; timeout 200 $B/gpu_test_vortex > $OUT/r/gpu_test_vortex.txt 2>&1; echo "== gpu_test_vortex exit $? wall $((SECONDS-s))s" > $OUT/r/tests.txt ) &
$B/exp.sh $B/lr7.txt 9 $((555 - SECONDS))
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
