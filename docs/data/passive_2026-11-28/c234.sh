#!/bin/bash
# c234 (H200 x4): the headless renderer takes the EGL device of CUDA's device 0 (render/headless.c,
# device_pass): gpu_test_render on GPU 2 alone (c230: interop refused), on GPU 0 alone and with every
# GPU visible; a 1080p headless run on GPU 2 alone (its interop line).
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
T=$OUT/render.txt; cat $H/exp/COMMIT > $T; nvidia-smi -L >> $T
for v in 2 0 all; do
  echo "== gpu_test_render, CUDA_VISIBLE_DEVICES=$v" >> $T
  if [ $v = all ]; then timeout 100 $H/exp/gpu_test_render >> $T 2>&1; else CUDA_VISIBLE_DEVICES=$v timeout 100 $H/exp/gpu_test_render >> $T 2>&1; fi
  echo "exit $?" >> $T
done
echo "== vortexfmm leapfrog --frames 60, CUDA_VISIBLE_DEVICES=2" >> $T
CUDA_VISIBLE_DEVICES=2 timeout 100 $H/exp/vortexfmm --headless --backend cuda --scene leapfrog --frames 60 --size 1920x1080 >> $T 2>&1; echo "exit $?" >> $T
cat $T
