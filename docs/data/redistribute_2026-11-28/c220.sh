#!/bin/bash
# c221 (H200): leapfrog_big with the rings' stations redistributed every K steps (VX_REDIST=K, the
# generated shares and the strengths' dipole: c220's r1000), the energy rule off (VX_ENERGY_RISE=100),
# to t = 10, --tracers 0, six runs under MPS: how much of r1000's t = 10 is the interval, the relaxation,
# the order and the precision.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/exp/COMMIT > $OUT/runs/commit.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; rest=${1#*|}; envs=${rest%%|*}; args=${rest#*|}; s=$(date +%s)
  echo "cmd: $envs vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  env $envs timeout -s INT -k 20 520 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
B="--scene leapfrog_big --backend cuda --tracers 0 --t-end 10 --diag-every 250"
printf '%s\n' "lb_r500_off__cuda__float|VX_ENERGY_RISE=100 VX_REDIST=500|$B" "lb_r2000_off__cuda__float|VX_ENERGY_RISE=100 VX_REDIST=2000|$B" \
  "lb_r1000_relax02_off__cuda__float|VX_ENERGY_RISE=100 VX_REDIST=1000|$B --relax 0.02" "lb_r1000_relax005_off__cuda__float|VX_ENERGY_RISE=100 VX_REDIST=1000|$B --relax 0.005" \
  "lb_r1000_p10_off__cuda__float|VX_ENERGY_RISE=100 VX_REDIST=1000|$B --order 10" "lb_r1000_off__cuda__double|VX_ENERGY_RISE=100 VX_REDIST=1000|$B --precision double" \
  | xargs -d '\n' -P 6 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
