#!/bin/bash
# issue 12 measurement: uniform float p=8 gradient; auto, forced La-1/La+1, cost model
B=/work/main/build-h12b/vortexfmm-bench
common="--backend cpu --dist uniform --precision float --order 8 --json --quiet"
for e in 14 15 16 17 18 19 20; do
  n=$((1<<e))
  case $e in 14) R=5; La=3;; 15) R=3; La=3;; 16) R=3; La=4;; 17) R=3; La=4;; 18) R=3; La=4;; *) R=1; La=$(( e==19 ? 5 : 5 ));; esac
  echo "auto $e $($B $common --n $n --repeat $R)"
  for L in $((La-1)) $((La+1)); do
    r=$R; [ $e -eq 18 ] && [ $L -eq 3 ] && r=1
    echo "L$L $e $($B $common --n $n --repeat $r --levels $L)"
  done
  echo "cost $e $($B $common --n $n --repeat $R --level-rule cost)"
done
echo ALLDONE
