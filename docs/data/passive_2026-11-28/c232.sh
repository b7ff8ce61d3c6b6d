#!/bin/bash
# c232 (the same warm H200 x4 as c231): leapfrog_big goes on from c231's last checkpoint (t = 8.07,
# step 40347, written at the interrupt; 27 MB, which cannot come back from the machine) to t = 10.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; ls -la /tmp/lfb.ckpt > $OUT/runs/lfb_part2.log 2>&1 || { echo "no checkpoint"; exit 1; }
s=$(date +%s)
CUDA_VISIBLE_DEVICES=0 timeout -s INT -k 20 400 $H/exp/vortexfmm --headless --restart /tmp/lfb.ckpt --backend cuda \
  --t-end 10 --diag-every 20 --diag $OUT/runs/lfb_part2.csv >> $OUT/runs/lfb_part2.log 2>&1
echo "exit $? wall $(( $(date +%s) - s )) s" >> $OUT/runs/lfb_part2.log
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
tail -n 5 $OUT/runs/*.log
cd $OUT && tar czf all.tgz runs && rm -rf runs
