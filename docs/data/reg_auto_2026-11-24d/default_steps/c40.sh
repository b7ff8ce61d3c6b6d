#!/bin/bash
# session 2026-11-25 call 6 (binaries of df7a705, FMM_REG_AUTO the default): leapfrog's step (float, its 262144 tracers)
# with the default against the cap (VX_REG_CORRECT=0), two rounds, solo; then every GPU test beside every scene to t = 10 (MPS)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
for rnd in 1 2; do for v in "VX_REG_CORRECT=2" "VX_REG_CORRECT=0"; do
  echo "== $v"; env $v $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 2>&1 | grep -E "step time|far field per" | cut -c1-330
done; done > $OUT/r/leapfrog_steps.txt 2>&1
for v in "VX_REG_CORRECT=2" "VX_REG_CORRECT=0"; do
  echo "== $v"; env $v $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 40 2>&1 | grep -E "step time|far field per" | cut -c1-330
done >> $OUT/r/leapfrog_steps.txt 2>&1
echo "solo $SECONDS s" > $OUT/r/time.txt
nvidia-cuda-mps-control -d && echo mps on
( sleep $((555 - SECONDS)); pkill -INT -f gpu_test_ ) & g=$!
( for t in gpu_test_fmm gpu_test_fmm_reg gpu_test_accuracy gpu_test_vortex gpu_test_octree gpu_test_launch gpu_test_p2p_fast gpu_test_m2l_spec gpu_test_m2l_dense; do s=$SECONDS; timeout 150 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $OUT/r/tests.txt ) & tj=$!
$B/exp.sh $B/lr6.txt 7 $((550 - SECONDS))
wait $tj
kill $g 2>/dev/null
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
