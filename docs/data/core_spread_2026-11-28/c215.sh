#!/bin/bash
# c215 (H200): the oblique collision without relaxation, the drop threshold lower, the impulse restored (issue 10),
# to t = 10, --tracers 0, under MPS.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/exp/COMMIT > $OUT/runs/commit.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; rest=${1#*|}; nu=${rest%%|*}; args=${rest#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 540 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
B="--scene oblique --backend cuda --tracers 0 --t-end 10 --diag-every 10 --relax 0"
printf '%s\n' "ob_r0_full_d1e-4__cuda__double|0|$B --conserve full --remesh-drop 1e-4" \
  "ob_r0_full_d1e-5__cuda__double|0|$B --conserve full --remesh-drop 1e-5" \
  "ob_r0_full_d1e-3__cuda__double|0|$B --conserve full" \
  "ob_r0_off_d1e-4__cuda__double|0|$B --remesh-drop 1e-4" \
  "ob_r005_full_d1e-4__cuda__double|0|$B --conserve full --remesh-drop 1e-4 --relax 0.05" \
  | xargs -d '\n' -P 5 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
