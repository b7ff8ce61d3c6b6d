#!/bin/bash
# c169 (H100): issue 12's sub-millisecond rows again, the automatic level against its neighbours
# forced, five rounds alternated (c168 found 2^14 rings' automatic and forced level 3 within the
# noise of one run): N = 2^14 ... 2^17, uniform and rings, float p = 8, --repeat 21, one JSON line a run
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
B="$H/base/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8 --repeat 21"
for e in 14 15 16 17; do for d in uniform rings; do
 L=$($B --dist $d --n $((1 << e)) --repeat 3 | python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['levels'])")
 for round in 1 2 3 4 5; do for lv in 0 $((L - 1)) $L $((L + 1)); do
  [ $lv -ne 0 ] && [ $lv -lt 2 ] && continue
  echo "== $e $d $lv $round" >> $R/levels.txt
  timeout 30 $B --dist $d --n $((1 << e)) --levels $lv >> $R/levels.txt 2>&1
 done; done
done; done
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
