#!/bin/bash
# c76: every scene to t = 10 on the GPU (lr6, MPS) with the L2P derivative kernel by degree (01af103)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
cd $B/../..
nvidia-cuda-mps-control -d
bash $B/exp.sh $B/lr6.txt 7 300
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
