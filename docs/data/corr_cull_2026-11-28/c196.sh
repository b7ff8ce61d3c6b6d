#!/bin/bash
# c196 (H100): the near and far streams' priorities (an experiment build: 0e97065 with VX_STREAM_PRIO read where the streams are made; as kept in the next commit but with no priority by default):
# VX_STREAM_PRIO unset (both the default), far (the far field's stream the greatest), near,
# alternated, three rounds; leapfrog 60 steps and to t = 1, leapfrog_big and headon 60 steps.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep "step time" >> $P; }
for round in 1 2 3; do for m in none far near; do
 prof "lf60 $m" VX_STREAM_PRIO=$m $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 prof "lfbig60 $m" VX_STREAM_PRIO=$m $H/exp/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60
 prof "headon60 $m" VX_STREAM_PRIO=$m $H/exp/vortexfmm --headless --scene headon --backend cuda --steps 60
done; done
for round in 1 2; do for m in none far near; do prof "lf_t1 $m" VX_STREAM_PRIO=$m $H/exp/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 1; done; done
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
