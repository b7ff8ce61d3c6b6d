#!/bin/bash
# c170 (H100): the cost model's level on the GPU against the leaf-size rule's and the forced levels
# around them, N = 2^14 ... 2^24, uniform and rings, float p = 8: a calibration first
# (--calibrate --repeat 5), then rounds alternating leaf rule / cost rule / forced levels
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
BB="$H/base/vortexfmm-bench --backend cuda --precision float --order 8"
timeout 150 $BB --calibrate --repeat 5 > $R/cost_cuda.txt 2> $R/calibrate.log
echo "calibrated $SECONDS s" > $R/time.txt
B="$BB --json --quiet"
lvl() { $B "$@" --repeat 2 | python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['levels'])"; }
for e in 14 15 16 17 18 19 20 21 22 23 24; do for d in uniform rings; do
 n=$((1 << e)); rep=21; [ $e -ge 20 ] && rep=7; rounds=3; [ $e -ge 21 ] && rounds=2
 L=$(lvl --dist $d --n $n); C=$(lvl --dist $d --n $n --level-rule cost --cost-file $R/cost_cuda.txt)
 lv="$((L - 1)) $L $((L + 1))"; [ $C -lt $((L - 1)) ] || [ $C -gt $((L + 1)) ] && lv="$lv $C"
 for round in $(seq $rounds); do
  echo "== $e $d leaf $round" >> $R/levels.txt; timeout 60 $B --dist $d --n $n --repeat $rep >> $R/levels.txt 2>&1
  echo "== $e $d cost $round" >> $R/levels.txt; timeout 60 $B --dist $d --n $n --repeat $rep --level-rule cost --cost-file $R/cost_cuda.txt >> $R/levels.txt 2>&1
  for l in $lv; do [ $l -lt 2 ] && continue
   echo "== $e $d $l $round" >> $R/levels.txt; timeout 60 $B --dist $d --n $n --repeat $rep --levels $l >> $R/levels.txt 2>&1
  done
 done
 echo "$e $d $SECONDS s" >> $R/time.txt
 [ $SECONDS -gt 480 ] && break 2
done; done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
