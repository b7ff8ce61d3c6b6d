#!/bin/bash
# c228 (H200 x4): c226's runs again, each its own process without MPS (c226 ran them under MPS, where
# one client's illegal memory access reached all twelve): does one of them fault alone? Spread over
# GPUs 1-3 as lr3.txt says; on GPU 0 the shipped oblique with its 131072 tracers to t = 10 after
# its step time (--steps 300, alone on GPU 0).
export VX_ASSETS_DIR=$PWD/assets
D=$PWD/docs/data/coarsen_2026-11-28
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs $OUT/perf; cat $H/exp/COMMIT > $OUT/runs/commit.txt; nvidia-smi -L > $OUT/runs/device.txt
NG=$(nvidia-smi -L | wc -l)
CUDA_VISIBLE_DEVICES=0 $H/exp/vortexfmm --headless --scene oblique --backend cuda --steps 300 > $OUT/perf/oblique_steps300.log 2>&1
LIM=$(( 400 - SECONDS )); export LIM H OUT
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless $args (GPU $CUDA_VISIBLE_DEVICES)" > $OUT/runs/$tag.log
  timeout -s INT -k 20 $LIM $H/exp/vortexfmm --headless $args --diag $OUT/runs/$tag.csv 2>&1 | grep -v "ms/step" >> $OUT/runs/$tag.log
  rc=${PIPESTATUS[0]}; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1
while IFS= read -r line; do
  [ -z "$line" ] && continue
  g=${line%%|*}; [ $g -ge $NG ] && g=$(( g % NG ))
  CUDA_VISIBLE_DEVICES=$g bash -c 'run1 "$@"' _ "${line#*|}" &
done < $D/lr3.txt
wait
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" > $OUT/runs/time.txt
tail -n 3 $OUT/runs/*.log; tail -n 4 $OUT/perf/*.log
cd $OUT && tar czf all.tgz runs perf && rm -rf runs perf
