#!/bin/bash
# c194 (H100): the M2L's dense kernels at the sparse levels of the scenes: 442c252 (base) with
# VX_M2L unset (the default: k_m2l_spec at levels filled below VX_M2L_TC_FILL), VX_M2L=tc (the
# tensor-core product at every level) and VX_M2L=dense, alternated; the far field's phase times.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -E "step time|far field per step|M2L by level" >> $P; }
for round in 1 2; do for m in auto tc dense; do
 prof "lf60 $m" VX_M2L=$m $H/base/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 prof "lf_t1 $m" VX_M2L=$m $H/base/vortexfmm --headless --scene leapfrog --backend cuda --t-end 1
 prof "lfbig60 $m" VX_M2L=$m $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60
done; done
cd $OUT && tar czf all.tgz r && rm -rf r
