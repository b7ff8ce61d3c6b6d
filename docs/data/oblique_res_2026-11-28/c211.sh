#!/bin/bash
# c211 (H100): the oblique collision's impulse through the reconnection against resolution (issue 10):
# the shipped sigma = h = 0.025 and halved, 0.0125 (8x the elements; the lattice follows sigma), with
# and without the conservative correction, to t = 1.5 (the reconnection); --tracers 0, under MPS.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/new/COMMIT > $OUT/runs/commit.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 500 $H/new/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
B="--scene oblique --backend cuda --tracers 0 --t-end 1.5 --diag-every 25"
printf '%s\n' "oblique_s025__cuda__double|$B" "oblique_s025_full__cuda__double|$B --conserve full" \
  "oblique_s0125__cuda__double|$B --sigma 0.0125" "oblique_s0125_full__cuda__double|$B --sigma 0.0125 --conserve full" \
  | xargs -d '\n' -P 4 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
