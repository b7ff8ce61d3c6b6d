#!/bin/bash
# c219 (H200): leapfrog_big with the rings' stations redistributed every K steps (VX_REDIST=K; with
# VX_REDIST_ALPHA=1 the centre and covariance weighted by the strengths, no dipole), to t = 10,
# --tracers 0, six runs under MPS (one without redistribution).
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
printf '%s\n' "lb_a50__cuda__float|VX_REDIST=50 VX_REDIST_ALPHA=1|$B" "lb_a250__cuda__float|VX_REDIST=250 VX_REDIST_ALPHA=1|$B" \
  "lb_a1000__cuda__float|VX_REDIST=1000 VX_REDIST_ALPHA=1|$B" "lb_a5000__cuda__float|VX_REDIST=5000 VX_REDIST_ALPHA=1|$B" \
  "lb_r5000__cuda__float|VX_REDIST=5000|$B" "lb_base__cuda__float|VX_NONE=1|$B" \
  | xargs -d '\n' -P 6 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
