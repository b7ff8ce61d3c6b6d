#!/bin/bash
# c231 (H200 x4): d15f88e's binaries. GPU 0: leapfrog_big as shipped, 2^20 tracers and all, towards
# t = 10 with a checkpoint every 2500 steps (c230's run reached t = 7.8 in its call; c232 goes on
# from the last checkpoint). GPU 1: gpu_test_accuracy with its re-measured bands; gpu_test_render
# with every GPU visible (c230 ran it on GPU 2 alone, where EGL's device 0 is not CUDA's).
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs $OUT/tests; cat $H/exp/COMMIT > $OUT/runs/commit.txt; nvidia-smi -L > $OUT/runs/device.txt
( for t in gpu_test_accuracy; do CUDA_VISIBLE_DEVICES=1 timeout 100 $H/exp/$t > $OUT/tests/$t.log 2>&1; echo "exit $?" >> $OUT/tests/$t.log; done
  timeout 100 $H/exp/gpu_test_render > $OUT/tests/gpu_test_render_all_visible.log 2>&1; echo "exit $?" >> $OUT/tests/gpu_test_render_all_visible.log ) &
s=$(date +%s)
CUDA_VISIBLE_DEVICES=0 timeout -s INT -k 20 $(( 560 - SECONDS )) $H/exp/vortexfmm --headless --scene leapfrog_big --backend cuda \
  --t-end 10 --diag-every 20 --diag $OUT/runs/lfb_part1.csv --checkpoint-every 2500 --checkpoint /tmp/lfb.ckpt > $OUT/runs/lfb_part1.log 2>&1
echo "exit $? wall $(( $(date +%s) - s )) s" >> $OUT/runs/lfb_part1.log
wait
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
cp /tmp/lfb.ckpt $OUT/lfb.ckpt; ls -la /tmp/lfb.ckpt* >> $OUT/runs/lfb_part1.log
tail -n 4 $OUT/runs/*.log $OUT/tests/*.log
cd $OUT && tar czf all.tgz runs tests && rm -rf runs tests
