#!/bin/bash
# c222 (H200): leapfrog_big with the stations redistributed every K steps at the cores' common scale
# that keeps the energy (VX_REDIST=K VX_REDIST_E=1: E measured at scales 1 and 1.05 and interpolated;
# energy_patch.patch), the blow-up rule as shipped, --tracers 0, three runs under MPS, cut at 200 s.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/exp/COMMIT > $OUT/runs/commit.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; rest=${1#*|}; envs=${rest%%|*}; args=${rest#*|}; s=$(date +%s)
  echo "cmd: $envs vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  env $envs timeout -s INT -k 10 200 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
B="--scene leapfrog_big --backend cuda --tracers 0 --t-end 10 --diag-every 250"
printf '%s\n' "lb_e1000__cuda__float|VX_REDIST=1000 VX_REDIST_E=1 VX_REDIST_VERBOSE=1|$B" "lb_e250__cuda__float|VX_REDIST=250 VX_REDIST_E=1 VX_REDIST_VERBOSE=1|$B" \
  "lb_e100__cuda__float|VX_REDIST=100 VX_REDIST_E=1 VX_REDIST_VERBOSE=1|$B" \
  | xargs -d '\n' -P 3 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" > $OUT/runs/time.txt
