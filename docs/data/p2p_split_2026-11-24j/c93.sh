#!/bin/bash
# c93: every scene to t = 10 on the H100 under MPS with 023c04c's binaries (lr6); GPU tests that read the scenes and the engine's twins
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_vortex gpu_test_m2l_spec gpu_test_accuracy; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
nvidia-cuda-mps-control -d
LIM=$((560 - SECONDS)); [ $LIM -gt 330 ] && LIM=330
bash $B/exp.sh $B/lr6.txt 7 $LIM
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
