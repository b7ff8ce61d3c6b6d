#!/bin/bash
# c225 (H200): leapfrog_big as shipped, its 2^20 tracers included, to t = 10, two runs side by side under MPS:
# a batch run with diagnostics, and the headless renderer drawing frames at t = 2.5, 5, 7.5, 10 (HUD on).
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/r/png; cat $H/exp/COMMIT > $OUT/r/commit.txt; nvidia-smi -L > $OUT/r/device.txt
nvidia-cuda-mps-control -d
timeout -s INT -k 20 540 $H/exp/vortexfmm --headless --quiet --scene leapfrog_big --backend cuda --t-end 10 --diag-every 100 \
  --diag $OUT/r/leapfrog_big_tracers__cuda__float.csv > $OUT/r/leapfrog_big_tracers__cuda__float.log 2>&1 &
timeout -s INT -k 20 540 $H/exp/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 4 --steps-per-frame 12500 \
  --size 1280x720 --hud --png-dir $OUT/r/png > $OUT/r/png/log.txt 2>&1 &
wait
echo quit | nvidia-cuda-mps-control; sleep 1
for f in $OUT/r/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" > $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
