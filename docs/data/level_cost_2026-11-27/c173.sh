#!/bin/bash
# c173 (H100): issue 12's level table with the default rule (the cost model, compiled-in table) on
# points it was not fitted to (--seed 2): N = 2^14 ... 2^24, uniform and rings, float p = 8 with
# gradients; rounds alternating the default rule, the leaf-size rule and the forced levels around them
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
B="$H/base/vortexfmm-bench --backend cuda --precision float --order 8 --json --quiet --seed ${SEED:-2}"
lvl() { $B "$@" --repeat 2 | python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['levels'])"; }
for e in 14 15 16 17 18 19 20 21 22 23 24; do for d in uniform rings; do
 n=$((1 << e)); rep=21; [ $e -ge 20 ] && rep=7; rounds=3; [ $e -ge 21 ] && rounds=2
 L=$(lvl --dist $d --n $n --level-rule leaf); C=$(lvl --dist $d --n $n)
 lv="$((L - 1)) $L $((L + 1))"; [ $C -lt $((L - 1)) ] || [ $C -gt $((L + 1)) ] && lv="$lv $C"
 for round in $(seq $rounds); do
  echo "== $e $d auto $round" >> $R/levels.txt; timeout 60 $B --dist $d --n $n --repeat $rep >> $R/levels.txt 2>&1
  echo "== $e $d leaf $round" >> $R/levels.txt; timeout 60 $B --dist $d --n $n --repeat $rep --level-rule leaf >> $R/levels.txt 2>&1
  for l in $lv; do [ $l -lt 2 ] && continue
   echo "== $e $d $l $round" >> $R/levels.txt; timeout 60 $B --dist $d --n $n --repeat $rep --levels $l >> $R/levels.txt 2>&1
  done
 done
 echo "$e $d $SECONDS s" >> $R/time.txt
 [ $SECONDS -gt 540 ] && break 2
done; done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
