#!/bin/bash
# c203 (H100, 924e6b3's binaries): the oblique collision to t = 10 with the conservative correction (full) against as shipped,
# obl2.txt under MPS (c202's runs were cut at t = 1.5-1.9 by a run without a drop threshold, 5 M elements)
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
D=docs/data/impulse_nu_2026-11-28
R=$OUT/r; mkdir -p $R $OUT/runs; cat $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 450 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
grep -v '^#' $D/obl2.txt | grep . | xargs -d '\n' -P 2 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "runs $SECONDS s" > $R/time.txt
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r runs && rm -rf r runs
