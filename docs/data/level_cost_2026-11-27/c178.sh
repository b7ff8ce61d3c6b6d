#!/bin/bash
# c178 (H100): the scenes at forced levels (VX_LEVELS) against the default choice: does a level the
# cost model does not weigh (it has no term for the regularization corrections) pay?
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
P=$R/levels.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 env "$@" 2>&1 | grep -v "^ *$" | grep 'median\|far field per step' >> $P; }
for round in 1 2; do
 for L in d 3 4 5; do E=""; [ $L != d ] && E="VX_LEVELS=$L"
  sc "lf60 L$L" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
 for L in d 3 4 5; do E=""; [ $L != d ] && E="VX_LEVELS=$L"
  sc "headon60 L$L" $E $B/vortexfmm --headless --scene headon --backend cuda --steps 60
 done
 for L in d 4 5 6; do E=""; [ $L != d ] && E="VX_LEVELS=$L"
  sc "lfbig100 L$L" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 done
done
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
