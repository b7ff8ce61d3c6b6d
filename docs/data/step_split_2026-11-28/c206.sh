#!/bin/bash
# c206 (H100): the working tree's engine (the direct sum over spans of the sources; fmm_params.allow_direct,
# on in the simulation). gpu_test_fmm; the scenes' elements alone (--tracers 0), 60 steps and to t = 1,
# the default (the direct sum where the cost model says it pays) against VX_DIRECT=0 (always the FMM),
# alternated, two rounds; leapfrog as shipped; the other GPU tests; vortexfmm-bench's FMM against the direct
# sum (rings, Gaussian, float) at N = 2^11..2^16; then every scene to t = 10 under MPS (lr10.txt = lr9's rows).
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R $OUT/runs $OUT/ckpt; cat $H/new/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for t in gpu_test_fmm gpu_test_vortex gpu_test_accuracy gpu_test_fmm_reg gpu_test_fmm_keep gpu_test_cost; do
  timeout 200 $H/new/$t > $R/$t.log 2>&1; echo "$t exit $?" >> $R/tests.txt; done
B="$H/new/vortexfmm-bench --backend cuda --precision float --kernel gauss --sigma 0.03 --dist rings --vs-direct --json --quiet"
for n in 2048 4096 8192 16384 32768 65536; do $B --n $n --repeat 7 >> $R/bench_direct.jsonl 2>&1; done
$B --n 8192 --repeat 7 --no-gradient >> $R/bench_direct.jsonl 2>&1
P=$R/speed.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 120 env "$@" 2>&1 | grep -A1 'step time' >> $P; }
X="$H/new/vortexfmm --headless --backend cuda"
for round in 1 2; do for v in 1 0; do V=""; [ $v = 0 ] && V="VX_DIRECT=0"
 for s in leapfrog headon oblique single_ring; do sc "$s tracers0 60 direct=$v" $V $X --scene $s --tracers 0 --steps 60; done
 sc "leapfrog tracers0 t1 direct=$v" $V $X --scene leapfrog --tracers 0 --t-end 1 --quiet
 sc "leapfrog ship 60 direct=$v" $V $X --scene leapfrog --steps 60
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
