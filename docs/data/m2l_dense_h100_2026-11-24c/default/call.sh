#!/bin/bash
# session 2026-11-24b call 8 (call 7 redone, its outputs lost to the 600 s limit): the dense M2L's default (auto) against spec
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 450 bash -c '
B=.gpu/bin
BN="$B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8"
for rnd in 1 2; do for m in spec auto; do
  VX_M2L=$m $BN --n 16777216 --repeat 3 --check 30 >> $OUT/r/b_u24.jsonl
  VX_M2L=$m $BN --n 4194304 --repeat 5 --check 100 >> $OUT/r/b_u22.jsonl
done; done
for m in spec auto; do
  VX_M2L=$m $BN --n 4194304 --dist rings --repeat 5 --check 100 >> $OUT/r/b_r22.jsonl
  VX_M2L=$m $BN --n 1048576 --dist rings --repeat 5 --check 100 >> $OUT/r/b_r20.jsonl
  VX_M2L=$m $BN --n 1048576 --repeat 5 --check 100 >> $OUT/r/b_u20.jsonl
  echo "$m leapfrog_big: $(VX_M2L=$m $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100 2>&1 | grep "step time" | cut -c1-200)" >> $OUT/r/steps.txt
  VX_M2L=$m $BN --n 16777216 --dist rings --repeat 3 --check 30 >> $OUT/r/b_r24.jsonl
done
echo "done $SECONDS s" >> $OUT/r/time.txt
' 2>>$OUT/r/err.txt
cd $OUT && tar czf all.tgz r && rm -rf r
