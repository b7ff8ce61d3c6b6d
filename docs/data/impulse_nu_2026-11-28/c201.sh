#!/bin/bash
# c201 (H100): every scene to t = 10, d87d28d's engine (924e6b3's binaries) with leapfrog at nu = 6e-4,
# under MPS: lr9.txt (lr8's rows), each run's CSV and log in runs/
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R $OUT/runs $OUT/ckpt; cat $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 400 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv --checkpoint $OUT/ckpt/$tag.ckpt >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
grep -v '^#' docs/data/impulse_nu_2026-11-28/lr9.txt | grep . | xargs -d '\n' -P 7 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "runs $SECONDS s" > $R/time.txt
cd $OUT && rm -rf ckpt && tar czf all.tgz r runs && rm -rf r runs
