#!/bin/bash
# c67: every scene to t = 10 on the GPU (lr6, MPS) with the final binaries (tensor-core M2L, P2M spec); GPU tests after
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env $B/lib
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
nvidia-cuda-mps-control -d && echo mps on > $OUT/r/time.txt
bash $B/exp.sh $B/lr6.txt 7 300
echo quit | nvidia-cuda-mps-control; sleep 1
echo "runs $SECONDS s" >> $OUT/r/time.txt
for t in gpu_test_m2l_dense gpu_test_m2l_spec gpu_test_fmm gpu_test_p2p_fast gpu_test_vortex gpu_test_accuracy gpu_test_fmm_reg; do s=$SECONDS; timeout 120 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; [ $SECONDS -gt 540 ] && break; done > $OUT/r/tests.txt
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
