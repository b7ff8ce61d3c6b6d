#!/bin/bash
# c152: the far field's upward pass launched before the near field (VX_EXP_UPFIRST) and stream priorities
# (VX_EXP_PRIO=far|near), experiment switches; ncu per kernel of leapfrog (3 steps)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | grep "step time" >> $P; }
for round in 1 2; do
 for v in "X=0" "VX_EXP_UPFIRST=1" "VX_EXP_PRIO=far" "VX_EXP_UPFIRST=1 VX_EXP_PRIO=far" "VX_EXP_PRIO=near"; do
  prof "big $v" $v $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf $v" $v $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
done
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for v in "X=0" "VX_EXP_UPFIRST=1" "VX_EXP_PRIO=far" "VX_EXP_UPFIRST=1 VX_EXP_PRIO=far"; do
 run "u20 $v" $v $B/new/vortexfmm-bench $A --n 1048576 --repeat 7 --check 100
 run "r20 $v" $v $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 100
done
NCU=$(which ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 200 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
