#!/bin/bash
# c207 (H100): the final code of this round (the H100 float table's direct units 0.0045 / 0.0032 ns;
# gpu_test_vortex comparing the two backends' FMMs, VX_DIRECT=0). The GPU tests; leapfrog's elements
# alone and as shipped, default against VX_DIRECT=0, alternated, two rounds; every scene to t = 10
# under MPS (lr10.txt).
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R $OUT/runs $OUT/ckpt; cat $H/new/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for t in gpu_test_fmm gpu_test_vortex gpu_test_accuracy gpu_test_fmm_reg gpu_test_fmm_keep gpu_test_cost; do
  timeout 200 $H/new/$t > $R/$t.log 2>&1; echo "$t exit $?" >> $R/tests.txt; done
P=$R/speed.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 120 env "$@" 2>&1 | grep -A1 'step time' >> $P; }
X="$H/new/vortexfmm --headless --backend cuda --scene leapfrog"
for round in 1 2; do for v in 1 0; do V=""; [ $v = 0 ] && V="VX_DIRECT=0"
 sc "leapfrog tracers0 60 direct=$v" $V $X --tracers 0 --steps 60
 sc "leapfrog ship 60 direct=$v" $V $X --steps 60
done; done
echo "speed $SECONDS s" > $R/time.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 400 $H/new/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv --checkpoint $OUT/ckpt/$tag.ckpt >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
grep -v '^#' docs/data/step_split_2026-11-28/lr10.txt | grep . | xargs -d '\n' -P 7 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && rm -rf ckpt && tar czf all.tgz r runs && rm -rf r runs
