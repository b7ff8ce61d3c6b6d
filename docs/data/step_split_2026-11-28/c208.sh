#!/bin/bash
# c208 (H100, c207's binaries): the H100 float calibration again, now with the direct sum's units
# (--calibrate times fmm_direct on 8192 uniform points); then whether the FMM's error seeds the thin-core
# leapfrog's breakdown: leapfrog_big --tracers 0 to t = 8 at p = 12 and p = 16 (float) under MPS.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R $OUT/runs; cat $H/new/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
timeout 200 $H/new/vortexfmm-bench --backend cuda --precision float --order 8 --calibrate --repeat 5 > $R/cost_cuda.txt 2> $R/calibrate.log
echo "calibrated $SECONDS s" > $R/time.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 430 $H/new/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
printf '%s\n' "leapfrog_big-p12__cuda__float|--scene leapfrog_big --backend cuda --tracers 0 --t-end 8 --diag-every 100 --order 12" \
  "leapfrog_big-p16__cuda__float|--scene leapfrog_big --backend cuda --tracers 0 --t-end 8 --diag-every 100 --order 16" |
  xargs -d '\n' -P 2 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r runs && rm -rf r runs
