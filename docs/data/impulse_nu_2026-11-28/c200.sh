#!/bin/bash
# c200 (H100, d87d28d's code = 924e6b3's binaries): leapfrog's impulse against its viscosity. Every run of
# nu1.txt to t = 10 under MPS (tracers 0; CSV and log of each in runs/), then the step time with the
# scene's tracers, 60 steps and to t = 1, as shipped against nu = 4e-4 and 6e-4, alternated, two rounds.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
D=docs/data/impulse_nu_2026-11-28
R=$OUT/r; mkdir -p $R $OUT/runs; cat $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 420 $H/exp/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
grep -v '^#' $D/nu1.txt | grep . | xargs -d '\n' -P 8 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "runs $SECONDS s" > $R/time.txt
P=$R/speed.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 env "$@" 2>&1 | grep 'step time' >> $P; }
for round in 1 2; do for nu in ship 4e-4 6e-4; do V=""; [ $nu != ship ] && V="--viscosity $nu"
 sc "lf60 $nu" $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --steps 60 $V
 sc "lf_t1 $nu" $H/exp/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 1 $V
done; done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r runs && rm -rf r runs
