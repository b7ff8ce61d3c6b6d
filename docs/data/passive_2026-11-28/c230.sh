#!/bin/bash
# c230 (H200 x4): d15f88e's binaries (the elements on their own tree, the tracers in calls of their
# own) against d0b89e9's (old). GPU 0: leapfrog_big's step with its 2^20 tracers, new and old
# alternated, two rounds (--steps 300), then the scene as shipped, tracers and all, to t = 10.
# GPU 1: the other scenes as shipped with their tracers to t = 10. GPU 2: the GPU tests of the
# simulation, --tracers 0 new against old to the bit (40 steps a scene), then four variants of the full oblique. GPU 3: eight variants of the reduced oblique.
# Each run its own process, without MPS (lr.txt: gpu|tag|args).
export VX_ASSETS_DIR=$PWD/assets
D=$PWD/docs/data/passive_2026-11-28
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs $OUT/perf $OUT/tests; cat $H/exp/COMMIT > $OUT/runs/commit.txt; nvidia-smi -L > $OUT/runs/device.txt
NG=$(nvidia-smi -L | wc -l)
LIM=$(( 540 - SECONDS )); export LIM H OUT
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless $args (GPU $CUDA_VISIBLE_DEVICES)" > $OUT/runs/$tag.log
  timeout -s INT -k 20 $(( LIM - SECONDS )) $H/exp/vortexfmm --headless $args --diag $OUT/runs/$tag.csv 2>&1 | grep -v "ms/step" >> $OUT/runs/$tag.log
  rc=${PIPESTATUS[0]}; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1
while IFS= read -r line; do
  [ -z "$line" ] && continue
  g=${line%%|*}; [ $g -ge $NG ] && g=$(( g % NG ))
  [ $g -eq 2 ] && continue
  CUDA_VISIBLE_DEVICES=$g bash -c 'run1 "$@"' _ "${line#*|}" &
done < $D/lr.txt
( export CUDA_VISIBLE_DEVICES=$(( 2 % NG ))
  for t in gpu_test_vortex gpu_test_accuracy gpu_test_launch gpu_test_render gpu_test_render_colour; do
    s=$(date +%s); timeout 200 $H/exp/$t > $OUT/tests/$t.log 2>&1; echo "exit $? wall $(( $(date +%s) - s )) s" >> $OUT/tests/$t.log
  done
  # --tracers 0: new against old to the bit over 40 steps, every scene (no tracers, no change)
  for s in single_ring leapfrog headon oblique leapfrog_big; do
    for v in vortexfmm vortexfmm_old; do timeout 120 $H/exp/$v --headless --quiet --backend cuda --scene $s --tracers 0 --steps 40 --diag-every 1 --diag $OUT/tests/bw_${s}_$v.csv > /dev/null 2>&1; done
    python3 $PWD/docs/data/tracer_step_2026-11-28/csv_equal.py $OUT/tests/bw_${s}_vortexfmm_old.csv $OUT/tests/bw_${s}_vortexfmm.csv $s >> $OUT/tests/bitwise.txt 2>&1
  done
  rm -f $OUT/tests/bw_*.csv
  grep '^2|' $D/lr.txt | while IFS= read -r line; do bash -c 'run1 "$@"' _ "${line#*|}" & done; wait ) &
( export CUDA_VISIBLE_DEVICES=0
  for r in 1 2; do
    for b in vortexfmm vortexfmm_old; do
      $H/exp/$b --headless --scene leapfrog_big --backend cuda --steps 300 > $OUT/perf/lfb_${b}_r$r.log 2>&1
    done
  done
  $H/exp/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 300 --tracers 0 > $OUT/perf/lfb_notracers.log 2>&1
  bash -c 'run1 "$@"' _ "leapfrog_big_tracers|--scene leapfrog_big --backend cuda --t-end 10 --diag-every 20" ) &
wait
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" > $OUT/runs/time.txt
tail -n 2 $OUT/runs/*.log; tail -n 3 $OUT/perf/*.log; tail -n 3 $OUT/tests/*.log
cd $OUT && tar czf all.tgz runs perf tests && rm -rf runs perf tests
