#!/bin/bash
# c184 (H100): the scenes over their run at forced levels against the default choice (fbb6b24): does
# the level the cost model picks stay the best as the elements grow? leapfrog to t = 2, headon and
# oblique to t = 1 (they run the leaf-size rule in double), two rounds alternated
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
P=$R/levels.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 100 env "$@" 2>&1 | grep 'step time\|far field per step' >> $P; }
for round in 1 2; do
 for L in d 4 5 6; do E=""; [ $L != d ] && E="VX_LEVELS=$L"
  sc "lf_t2 L$L" $E $H/base/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 2 --diag $R/lf_t2_L${L}_r$round.csv
 done
 for s in headon oblique; do for L in d 3 4; do E=""; [ $L != d ] && E="VX_LEVELS=$L"
  sc "${s}_t1 L$L" $E $H/base/vortexfmm --headless --quiet --scene $s --backend cuda --t-end 1
 done; done
done
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
