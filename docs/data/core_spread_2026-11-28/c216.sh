#!/bin/bash
# c216 (H200): leapfrog_big remeshed seldom (every 100 or 500 steps) on the lattice of c214 (issue 10),
# to t = 10, --tracers 0, under MPS.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs; cat $H/exp/COMMIT > $OUT/runs/commit.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; rest=${1#*|}; nu=${rest%%|*}; args=${rest#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 270 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
B="--scene leapfrog_big --backend cuda --tracers 0 --t-end 10 --diag-every 250 --remesh-h 0.0033 --sigma 0.005 --remesh-drop 1e-3"
C="$B --stretching classical --relax 0.3 --conserve full"
printf '%s\n' "lbs_every100__cuda__float|0|$C --remesh-every 100" "lbs_every500__cuda__float|0|$C --remesh-every 500" \
  "lbs_every500_scene__cuda__float|0|$B --remesh-every 500" \
  | xargs -d '\n' -P 3 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
