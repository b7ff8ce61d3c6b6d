#!/bin/bash
# c217 (H200): leapfrog_big with the rings' stations redistributed every K steps (the experiment
# build's VX_REDIST=K, vortex/redistribute.c), to t = 10, --tracers 0, five runs under MPS.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/exp/COMMIT > $OUT/runs/commit.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; rest=${1#*|}; k=${rest%%|*}; args=${rest#*|}; s=$(date +%s)
  echo "cmd: VX_REDIST=$k vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  VX_REDIST=$k timeout -s INT -k 20 530 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
B="--scene leapfrog_big --backend cuda --tracers 0 --t-end 10 --diag-every 250"
printf '%s\n' "lb_r250__cuda__float|250|$B" "lb_r1000__cuda__float|1000|$B" "lb_r50__cuda__float|50|$B" \
  "lb_r250_relax0__cuda__float|250|$B --relax 0" "lb_r250_full__cuda__float|250|$B --conserve full" \
  | xargs -d '\n' -P 5 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
