#!/bin/bash
# c112: leapfrog's step at forced levels with d958921's tolerances (is the automatic level still the best?)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -5 >> $P; }
for round in 1 2; do
 for L in auto 3 5; do
  E=X=1; [ $L != auto ] && E=VX_LEVELS=$L
  prof "lf60 $L" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
done
for L in auto 4 6; do
 E=X=1; [ $L != auto ] && E=VX_LEVELS=$L
 prof "lf1000 $L" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 1000
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
