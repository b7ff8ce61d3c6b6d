#!/bin/bash
# session 2026-11-24 call 7: compute-sanitizer racecheck and memcheck on small evaluations through the new kernels
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
run() { tag=$1; shift; s=$SECONDS; timeout 120 $CS --error-exitcode 9 "$@" > $OUT/r/$tag.txt 2>&1; echo "$tag exit $? wall $((SECONDS-s))s $(grep 'ERROR SUMMARY' $OUT/r/$tag.txt)"; }
for tool in racecheck memcheck; do
  run ${tool}_f8 --tool $tool $B/vortexfmm-bench --backend cuda --n 20000 --precision float --order 8 --repeat 1 --check 0 --quiet
  run ${tool}_d12 --tool $tool $B/vortexfmm-bench --backend cuda --n 20000 --dist rings --precision double --order 12 --repeat 1 --check 0 --quiet
  run ${tool}_f6_gauss --tool $tool $B/vortexfmm-bench --backend cuda --n 20000 --precision float --order 6 --kernel gauss --sigma 0.01 --repeat 1 --check 0 --quiet
  VX_P2P=fast4 run ${tool}_f8_fast4 --tool $tool $B/vortexfmm-bench --backend cuda --n 20000 --precision float --order 8 --repeat 1 --check 0 --quiet
  VX_P2P=fast1 run ${tool}_d8_fast1 --tool $tool $B/vortexfmm-bench --backend cuda --n 20000 --precision double --order 8 --repeat 1 --check 0 --quiet
done | tee $OUT/r/summary.txt
cd $OUT && tar czf all.tgz r && rm -rf r && ls -la $OUT
