#!/bin/bash
# c214 (H100/H200): leapfrog_big remeshed on a lattice that resolves its thin cores (h = a/1.5), as leapfrog is (issue 10),
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
B="--scene leapfrog_big --backend cuda --tracers 0 --t-end 10 --diag-every 250 --remesh-h 0.0033 --sigma 0.005 --conserve full --remesh-drop 1e-3"
C="$B --stretching classical --relax 0.3 --lcfl 1"
printf '%s\n' "lbr_A__cuda__float|0|$C --remesh-every 10" "lbr_B_nu2e-6__cuda__float|0|$C --remesh-every 10 --viscosity 2e-6" \
  "lbr_C_every5__cuda__float|0|$C --remesh-every 5" "lbr_D_transpose__cuda__float|0|$B --remesh-every 10" \
  "lbr_E_h0025__cuda__float|0|$C --remesh-every 10 --remesh-h 0.0025 --sigma 0.004" \
  | xargs -d '\n' -P 5 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" > $OUT/runs/time.txt
cd $OUT && tar czf all.tgz runs && rm -rf runs
