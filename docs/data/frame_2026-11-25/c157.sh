#!/bin/bash
# c157: issue 12's level table with the GPU's leaf floor off: the automatic level against its neighbours
# forced, uniform and rings, every power N = 2^12 ... 2^24 (float p = 8, gradients)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
J=$R/levels.jsonl
A="--backend cuda --json --quiet --precision float --order 8"
one() { tag=$1; shift; timeout 100 $B/new/vortexfmm-bench $A "$@" | sed "s/^{/{\"tag\":\"$tag\",/" >> $J; }
for e in 12 13 14 15 16 17 18 19 20 21 22 23 24; do
 for d in uniform rings; do
  [ $SECONDS -gt 520 ] && break 2
  n=$((1 << e))
  if [ $e -le 17 ]; then rep=21; rounds=3; chk=50; elif [ $e -le 22 ]; then rep=5; rounds=1; chk=30; else rep=3; rounds=1; chk=10; fi
  L=$($B/new/vortexfmm-bench $A --dist $d --n $n --repeat 1 --check 0 | grep -o '"levels":[0-9]*' | cut -d: -f2)
  for r in $(seq $rounds); do
   one auto --dist $d --n $n --repeat $rep --check $chk
   for l in $((L-1)) $L $((L+1)); do [ $l -ge 2 ] && one "L$l" --dist $d --n $n --levels $l --repeat $rep --check $chk; done
  done
  echo "$d $e done $SECONDS s" >> $R/time.txt
 done
done
cd $OUT && tar czf all.tgz r && rm -rf r
