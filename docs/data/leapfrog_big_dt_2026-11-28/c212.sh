#!/bin/bash
# c212 (H100): leapfrog_big's thin cores at half the step (issue 10): dt = 0.0001 with the relaxation's
# rate per unit time kept (0.005 a step) and doubled (0.01 a step), beside the shipped scene, to t = 7,
# --tracers 0, under MPS.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/new/COMMIT > $OUT/runs/commit.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 520 $H/new/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
B="--scene leapfrog_big --backend cuda --tracers 0 --t-end 7 --diag-every 500"
printf '%s\n' "leapfrog_big_base__cuda__float|$B" "leapfrog_big_dt1e-4_r005__cuda__float|$B --dt 0.0001 --relax 0.005" \
  "leapfrog_big_dt1e-4_r01__cuda__float|$B --dt 0.0001 --relax 0.01" \
  | xargs -d '\n' -P 3 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
