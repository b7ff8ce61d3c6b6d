#!/bin/bash
# c227 (H200 x4, or x2): c226's runs all ended in "illegal memory access" at one moment: under MPS one
# client's fault reaches every client. Here: 1. compute-sanitizer on short GPU runs that coarsen
# early (the reduced oblique with remesh_coarsen 0.6), double and float; 2. the oblique candidates of
# lr2_oblique.txt, each its own process without MPS (a fault stays in its process), spread over the
# GPUs after the first; 3. the other scenes' table runs, lr2_table.txt, under MPS on GPU 0.
export VX_ASSETS_DIR=$PWD/assets
D=$PWD/docs/data/coarsen_2026-11-28
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
mkdir -p $OUT/runs $OUT/san; cat $H/exp/COMMIT > $OUT/runs/commit.txt; nvidia-smi -L > $OUT/runs/device.txt
NG=$(nvidia-smi -L | wc -l)
LIM=$(( 545 - SECONDS )); export LIM H OUT
run1() {
  tag=${1%%|*}; args=${1#*|}; s=$(date +%s)
  echo "cmd: vortexfmm --headless $args (GPU $CUDA_VISIBLE_DEVICES)" > $OUT/runs/$tag.log
  timeout -s INT -k 20 $LIM $H/exp/vortexfmm --headless $args --diag $OUT/runs/$tag.csv 2>&1 | grep -v "ms/step" >> $OUT/runs/$tag.log
  rc=${PIPESTATUS[0]}; echo "long_runs: wall $(( $(date +%s) - s )) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1
# 2. the candidates, without MPS
i=0
while IFS= read -r line; do
  [ -z "$line" ] && continue
  g=$(( NG > 1 ? 1 + i % (NG - 1) : 0 )); i=$((i + 1))
  CUDA_VISIBLE_DEVICES=$g bash -c 'run1 "$@"' _ "$line" &
done < $D/lr2_oblique.txt
# 1. the sanitizer, without MPS, on the last GPU
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "compute-sanitizer: ${CS:-none}" > $OUT/san/which.txt
if [ -n "$CS" ]; then
  for p in double float; do
    CUDA_VISIBLE_DEVICES=$((NG - 1)) timeout 300 $CS --tool memcheck $H/exp/vortexfmm --headless --scene oblique --backend cuda \
      --tracers 0 --sigma 0.05 --dt 0.01 --remesh-every 2 --steps 150 --relax 0 --conserve full --remesh-drop 1e-4 \
      --remesh-coarsen 0.6 --precision $p --quiet > $OUT/san/$p.log 2>&1 &
  done
fi
# 3. the table's other scenes, under MPS on GPU 0
export CUDA_VISIBLE_DEVICES=0
nvidia-cuda-mps-control -d
grep -v '^#' $D/lr2_table.txt | grep . | xargs -d '\n' -P 8 -I{} bash -c 'run1 "$@"' _ {}
echo quit | nvidia-cuda-mps-control
wait
for f in $OUT/runs/*.csv.tmp-*; do [ -f "$f" ] && mv "$f" "${f%%.tmp-*}"; done
echo "all $SECONDS s" > $OUT/runs/time.txt
tail -n 2 $OUT/runs/*.log; tail -n 5 $OUT/san/*.log
cd $OUT && tar czf all.tgz runs san && rm -rf runs san
