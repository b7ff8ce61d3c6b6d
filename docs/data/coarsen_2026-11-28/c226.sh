#!/bin/bash
# c226 (H200): the oblique collision on a lattice that coarsens as its field spreads (remesh_coarsen,
# vortex/coarsen.h), variants of lr1.txt to t = 10 under MPS; --tracers 0.
export VX_ASSETS_DIR=$PWD/assets
D=$PWD/docs/data/coarsen_2026-11-28
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/exp/COMMIT > $OUT/runs/commit.txt; nvidia-smi -L > $OUT/runs/device.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 $LIM $H/exp/vortexfmm --headless $args --diag $OUT/runs/$tag.csv 2>&1 | grep -v "ms/step" >> $OUT/runs/$tag.log
  rc=${PIPESTATUS[0]}; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
LIM=$(( 540 - SECONDS )); export LIM
export -f run1; export H OUT
grep -v '^#' $D/${LIST:-lr1.txt} | grep . | xargs -d '\n' -P 16 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" > $OUT/runs/time.txt
tail -n 3 $OUT/runs/*.log
cd $OUT && tar czf all.tgz runs && rm -rf runs
