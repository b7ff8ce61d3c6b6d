#!/bin/bash
# session 2026-11-24f call 5: the final commit's GPU twin tests and the GPU bench (pair_bs_split as before)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
for t in gpu_test_fmm gpu_test_fmm_reg gpu_test_p2p_fast gpu_test_vortex gpu_test_accuracy gpu_test_m2l_spec; do
  s=$SECONDS; timeout 70 $B/$t > $OUT/r/$t.txt 2>&1; rc=$?; echo "== $t exit $rc wall $((SECONDS-s))s"
done > $OUT/r/tests.txt 2>&1
bench() { timeout 60 "$@" --backend cuda --json --quiet 2>/dev/null | tail -n 1; }
for r in 1 2; do for v in .gpu/old/vortexfmm-bench-8aca1c4 $B/vortexfmm-bench; do
  echo "$v uniform"; bench $v --n 1048576 --precision float --order 8 --repeat 7 --check 100
  echo "$v double"; bench $v --n 1048576 --precision double --order 12 --repeat 5 --check 100
done; done > $OUT/r/ab.txt
for r in 1 2; do echo "== leapfrog_big $r"; timeout 60 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 40 2>&1 | grep -E "step time" | cut -c1-200; done > $OUT/r/steps.txt 2>&1
echo "all $SECONDS s" > $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
