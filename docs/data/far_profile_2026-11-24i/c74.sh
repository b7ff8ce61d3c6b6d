#!/bin/bash
# c74: where the scenes' steps go: serial phases (VX_FMM_SERIAL=1) and ncu per-kernel times
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 env "$@" 2>&1 | grep -v "^ *$" | tail -5 >> $P; }
for round in 1 2; do
 prof "big auto" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60
 prof "big serial" VX_FMM_SERIAL=1 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60
 prof "lf auto" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40
 prof "lf serial" VX_FMM_SERIAL=1 $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40
done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
echo "ncu $NCU" >> $R/time.txt
timeout 200 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big.txt 2>&1
echo "ncu big $SECONDS s" >> $R/time.txt
timeout 150 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
