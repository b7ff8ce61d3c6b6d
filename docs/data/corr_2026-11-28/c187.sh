#!/bin/bash
# c187 (H100, 6d45d8a): leapfrog's step against its tracer count (the elements alone, a quarter, half,
# the scene's 262 144), over its first 60 steps and its first time unit, two rounds
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
P=$R/tracers.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 "$@" 2>&1 | grep 'step time' >> $P; }
for round in 1 2; do for n in 0 65536 131072 262144; do
 sc "lf60 tracers $n" $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --steps 60 --tracers $n
 sc "lf_t1 tracers $n" $H/exp/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 1 --tracers $n
done; done
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
