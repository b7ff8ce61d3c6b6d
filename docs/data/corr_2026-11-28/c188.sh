#!/bin/bash
# c188 (H100, 6d45d8a): leapfrog's elements alone (--tracers 0) at forced levels against the default
# choice, 60 steps and to t = 1, two rounds
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
P=$R/levels0.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 env "$@" 2>&1 | grep 'step time\|far field per step' >> $P; }
for round in 1 2; do for L in d 2 3 4; do E=""; [ $L != d ] && E="VX_LEVELS=$L"
 sc "lf60 notr L$L" $E $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --steps 60 --tracers 0
 sc "lf_t1 notr L$L" $E $H/exp/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 1 --tracers 0
done; done
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
