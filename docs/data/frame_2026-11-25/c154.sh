#!/bin/bash
# c154: issue 12's level table with this session's code: the automatic level against its neighbours forced,
# uniform and rings, N = 2^14 ... 2^24 (float p = 8, gradients)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
J=$R/levels.jsonl
A="--backend cuda --json --quiet --precision float --order 8"
one() { tag=$1; shift; timeout 120 $B/new/vortexfmm-bench $A "$@" | sed "s/^{/{\"tag\":\"$tag\",/" >> $J; }
for dl in "uniform 14" "rings 14" "uniform 16" "rings 16" "uniform 18" "rings 18" "uniform 20" "rings 20" "rings 21" "uniform 22" "rings 22" "rings 23" "uniform 24" "rings 24"; do
 set -- $dl; d=$1; e=$2; n=$((1 << e))
 if [ $e -le 18 ]; then rep=21; rounds=2; chk=100; elif [ $e -le 22 ]; then rep=5; rounds=1; chk=50; else rep=3; rounds=1; chk=10; fi
 L=$($B/new/vortexfmm-bench $A --dist $d --n $n --repeat 1 --check 0 | grep -o '"levels":[0-9]*' | cut -d: -f2)
 for r in $(seq $rounds); do
  one auto --dist $d --n $n --repeat $rep --check $chk
  for l in $((L-1)) $L $((L+1)); do [ $l -ge 2 ] && one "L$l" --dist $d --n $n --levels $l --repeat $rep --check $chk; done
 done
 echo "$d $e done $SECONDS s" >> $R/time.txt
done
cd $OUT && tar czf all.tgz r && rm -rf r
