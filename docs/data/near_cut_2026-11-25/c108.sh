#!/bin/bash
# c108: leapfrog's step against the regularization tolerance (f35ac30's binary, VX_REG_TOL), alternated, two rounds
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -5 >> $P; }
for round in 1 2; do
 for T in 1e-5 1e-4 1e-3; do
  prof "lf60 $T" VX_REG_TOL=$T $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
done
for T in 1e-5 1e-4 1e-3; do
 prof "lf1000 $T" VX_REG_TOL=$T $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 1000
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
