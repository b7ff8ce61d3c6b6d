#!/bin/bash
# c224 (H200): c223 again, its files tarred this time (c223 wrote more files than come back, and they were lost;
# its output tail is c223_tail.txt), with four more runs: lr2.txt. leapfrog_big as thin filaments (layers = 0,
# 2 x 16384 stations, sigma = 0.005). 1. the step with the 2^20 tracers against the resolved-core scene it
# replaces, 300 steps, alternated twice, alone on the GPU; 2. four frames (EGL); 3. lr2.txt to t = 10 under MPS.
export VX_ASSETS_DIR=$PWD/assets
D=$PWD/docs/data/thin_filament_2026-11-28
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs $OUT/perf $OUT/ckpt $OUT/png; cat $H/exp/COMMIT > $OUT/runs/commit.txt; nvidia-smi -L > $OUT/runs/device.txt
for i in 1 2; do
  for s in $D/leapfrog_big_resolved.scene leapfrog_big; do
    b=$(basename $s .scene)
    $H/exp/vortexfmm --headless --scene $s --backend cuda --steps 300 > $OUT/perf/${b}_$i.log 2>&1
  done
done
$H/exp/vortexfmm --headless --scene leapfrog_big --frames 4 --steps-per-frame 450 --size 1280x720 --hud --png-dir $OUT/png > $OUT/png/log.txt 2>&1
echo "perf+png $SECONDS s" > $OUT/runs/time.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 $LIM $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
LIM=$(( 560 - SECONDS )); export LIM
export -f run1; export H OUT
grep -v '^#' $D/lr2.txt | grep . | xargs -d '\n' -P 13 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" >> $OUT/runs/time.txt
ls -la $OUT/ckpt > $OUT/runs/ckpt_list.txt
cd $OUT && rm -rf ckpt && tar czf all.tgz runs perf png && rm -rf runs perf png
