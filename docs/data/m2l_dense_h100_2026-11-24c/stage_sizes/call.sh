#!/bin/bash
# session 2026-11-24b call 12: dense M2L stage sizes: as committed (2 x 34 KB stages, 3 a slot), k2 (2 x 49 KB, 2 a slot), m1k (2 x 97 KB, 1 a slot, 1 block/SM)
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 330 bash -c '
B=.gpu/bin
for rnd in 1 2; do for v in "" -k2 -m1k; do
  echo "v$v $($B/vortexfmm-bench$v --backend cuda --json --quiet --precision float --order 8 --n 16777216 --repeat 3 --check 10)" >> $OUT/r/b24.txt
  echo "v$v $($B/vortexfmm-bench$v --backend cuda --json --quiet --precision float --order 8 --n 4194304 --repeat 5 --check 10)" >> $OUT/r/b22.txt
done; done
' 2>>$OUT/r/err.txt
cd $OUT && tar czf all.tgz r && rm -rf r
