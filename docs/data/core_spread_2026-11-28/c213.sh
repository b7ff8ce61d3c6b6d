#!/bin/bash
# c213 (H100): leapfrog_big with viscosity by core spreading (issue 10): sigma^2 = sigma0^2 + 2 nu t,
# the experiment build's VX_SPREAD_NU, to t = 10, --tracers 0, under MPS.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/exp/COMMIT > $OUT/runs/commit.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; rest=${1#*|}; nu=${rest%%|*}; args=${rest#*|}; s=$(date +%s)
  echo "cmd: VX_SPREAD_NU=$nu vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  VX_SPREAD_NU=$nu timeout -s INT -k 20 540 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
B="--scene leapfrog_big --backend cuda --tracers 0 --t-end 10 --diag-every 250"
printf '%s\n' "lb_nu5e-6__cuda__float|5e-6|$B" "lb_nu1e-5__cuda__float|1e-5|$B" "lb_nu2e-5__cuda__float|2e-5|$B" \
  "lb_nu5e-5__cuda__float|5e-5|$B" "lb_nu1e-4__cuda__float|1e-4|$B" \
  | xargs -d '\n' -P 5 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
