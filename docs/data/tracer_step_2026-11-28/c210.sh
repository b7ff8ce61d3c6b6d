#!/bin/bash
# c210 (H100): the tracers' own step, final code (the span capped by VX_SIM_TRACER_LCFL; every scene
# ships tracer_every = 4). GPU tests; --tracers 0 against main's binaries (old/) to the bit on every
# scene (the key stripped for the old parser); each scene's step with its tracer_every against 1,
# alternated; the 1080p frame; leapfrog over t <= 1: diagnostics and tracers of m = 1, 2, 4 and of
# two FMM perturbations of m = 1; every scene with its tracers to t = 10 under MPS (lr10t.txt).
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
D=$PWD/docs/data/tracer_step_2026-11-28
R=$OUT/r; mkdir -p $R $OUT/ck $OUT/runs; cat $H/new/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for t in gpu_test_vortex gpu_test_launch gpu_test_render gpu_test_render_colour; do
  timeout 200 $H/new/$t > $R/$t.log 2>&1; echo "$t exit $?" >> $R/tests.txt; done
echo "tests $SECONDS s" > $R/time.txt
B=$R/bitwise.txt; S=/tmp/stripped; mkdir -p $S
for s in single_ring leapfrog headon oblique leapfrog_big; do
  grep -v '^tracer_every' assets/$s.scene > $S/$s.scene
  for v in old new; do timeout 120 $H/$v/vortexfmm --headless --quiet --backend cuda --scene $S/$s.scene --tracers 0 --steps 40 --diag-every 1 --diag $R/bw_${s}_$v.csv > $R/bw_${s}_$v.log 2>&1; done
  python3 $D/csv_equal.py $R/bw_${s}_old.csv $R/bw_${s}_new.csv $s >> $B 2>&1
done
rm -f $R/bw_*.csv
echo "bitwise $SECONDS s" >> $R/time.txt
P=$R/speed.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 150 env "$@" 2>&1 | grep -A1 'step time' >> $P; }
X="$H/new/vortexfmm --headless --backend cuda"
for round in 1 2; do
  for m in 4 1 2; do sc "leapfrog 60 m=$m" $X --scene leapfrog --steps 60 --tracer-every $m; done
  for m in 4 1; do sc "leapfrog t1 m=$m" $X --scene leapfrog --t-end 1 --tracer-every $m; done
  for s in single_ring headon oblique leapfrog_big; do for m in 4 1; do sc "$s 60 m=$m" $X --scene $s --steps 60 --tracer-every $m; done; done
done
echo "speed $SECONDS s" >> $R/time.txt
F=$R/frames.txt
for round in 1 2; do for m in 4 1; do echo "== leapfrog frames m=$m" >> $F
  timeout 150 $X --scene leapfrog --frames 300 --size 1920x1080 --tracer-every $m 2>&1 | grep "frame time" >> $F; done; done
echo "frames $SECONDS s" >> $R/time.txt
A="$X --quiet --scene leapfrog --t-end 1 --diag-every 10"
$A --tracer-every 1 --checkpoint $OUT/ck/m1.ckpt --diag $R/t1_m1.csv > $R/acc_m1.log 2>&1
$A --tracer-every 2 --checkpoint $OUT/ck/m2.ckpt --diag $R/t1_m2.csv > $R/acc_m2.log 2>&1
$A --tracer-every 4 --checkpoint $OUT/ck/m4.ckpt --diag $R/t1_m4.csv > $R/acc_m4.log 2>&1
VX_SPLIT_TARGETS=1 $A --tracer-every 1 --checkpoint $OUT/ck/split.ckpt --diag $R/t1_split.csv > $R/acc_split.log 2>&1
$A --tracer-every 1 --order 10 --checkpoint $OUT/ck/p10.ckpt --diag $R/t1_p10.csv > $R/acc_p10.log 2>&1
(cd $OUT/ck && python3 $D/ckpt_tracers.py m1.ckpt m2.ckpt m4.ckpt split.ckpt p10.ckpt) > $R/gaps.txt 2>&1
python3 $D/diag_gap.py $R/t1_m1.csv $R/t1_m2.csv $R/t1_m4.csv $R/t1_split.csv $R/t1_p10.csv > $R/diag_gaps.txt 2>&1
rm -rf $OUT/ck
echo "accuracy $SECONDS s" >> $R/time.txt
nvidia-cuda-mps-control -d
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 330 $H/new/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv >> $OUT/runs/$tag.log 2>&1
  rc=$?; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export H OUT
grep -v '^#' $D/lr10t.txt | grep . | xargs -d '\n' -P 6 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r runs && rm -rf r runs
