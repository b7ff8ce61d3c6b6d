#!/bin/bash
# c84: the automatic level over a run (issue 12): leapfrog to step 1100 and leapfrog_big to step 2600 at several
# leaf sizes (the level rule's target), per-step times and levels from the diagnostics rows (864ad82)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for ls in 0 128 512 1024 2048; do
 A=""; [ $ls != 0 ] && A="--leaf-size $ls"
 timeout 100 $B/vortexfmm --headless --quiet --scene leapfrog --backend cuda --steps 1100 --diag-every 10 $A --diag $R/lf_ls$ls.csv > $R/lf_ls$ls.log 2>&1
done
for ls in 0 128 1024; do
 A=""; [ $ls != 0 ] && A="--leaf-size $ls"
 timeout 100 $B/vortexfmm --headless --quiet --scene leapfrog_big --backend cuda --steps 2600 --diag-every 20 $A --diag $R/big_ls$ls.csv > $R/big_ls$ls.log 2>&1
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
