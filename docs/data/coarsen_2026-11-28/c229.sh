#!/bin/bash
# c229 (H200 x4): the shipped oblique (remesh_coarsen 2) with one change each, lr4.txt, each its own process,
# two to a GPU: what sets the impulse drift of -2e-4 a unit on the h = 0.05 lattice (c227, c228)?
export VX_ASSETS_DIR=$PWD/assets
D=$PWD/docs/data/coarsen_2026-11-28
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/exp/COMMIT > $OUT/runs/commit.txt; nvidia-smi -L > $OUT/runs/device.txt
NG=$(nvidia-smi -L | wc -l)
LIM=$(( 230 - SECONDS )); export LIM H OUT
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
done < $D/lr4.txt
wait
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" > $OUT/runs/time.txt
tail -n 3 $OUT/runs/*.log
cd $OUT && tar czf all.tgz runs && rm -rf runs
