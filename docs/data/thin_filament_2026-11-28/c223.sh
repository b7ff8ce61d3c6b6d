#!/bin/bash
# c223 (H200): leapfrog_big as thin filaments (layers = 0, 2 x 16384 stations, sigma = 0.005).
# 1. step time with the scene's 2^20 tracers, against the resolved-core scene it replaces, 300 steps,
#    alternated twice, alone on the GPU; 2. a few frames of the new scene (EGL);
# 3. every scene to t = 10 under MPS (lr1.txt), cut at 470 s, checkpoints kept for a continuation.
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
  timeout -s INT -k 20 $LIM $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv --checkpoint $OUT/ckpt/$tag.ckpt >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
LIM=$(( 560 - SECONDS )); export LIM
export -f run1; export H OUT
grep -v '^#' $D/lr1.txt | grep . | xargs -d '\n' -P 9 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" >> $OUT/runs/time.txt
ls -la $OUT/ckpt > $OUT/runs/ckpt_list.txt
