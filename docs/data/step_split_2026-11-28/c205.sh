#!/bin/bash
# c205 (H100): the direct sum over spans of the sources (k_direct + k_direct_sum), and the elements by
# direct sum beside the tracers' own FMM call (VX_ELEM_DIRECT=1, the tracers passive in it). "old":
# the working tree's binaries only (the carry limit); c204's on the same machine are main's. 60 steps
# and to t = 1 of leapfrog, alternated, two rounds.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; nvidia-smi -L > $R/device.txt
P=$R/speed.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 120 env "$@" 2>&1 | grep -A1 'step time' >> $P; }
for round in 1 2; do for b in new; do
 X="$H/$b/vortexfmm --headless --scene leapfrog --backend cuda"
 sc "$b ship" $X --steps 60
 sc "$b el direct" $X --steps 60 --tracers 0 --direct
 [ $b = new ] && sc "$b ELEM_DIRECT" VX_ELEM_DIRECT=1 $X --steps 60
 [ $b = new ] && sc "$b SPLIT" VX_SPLIT_TARGETS=1 $X --steps 60
 [ $b = new ] && sc "$b ELEM_DIRECT t1" VX_ELEM_DIRECT=1 $X --t-end 1 --quiet
 sc "$b t1" $X --t-end 1 --quiet
done; done
X="$H/new/vortexfmm --headless --scene leapfrog --backend cuda --tracers 0 --t-end 1 --diag-every 10 --quiet"
$X --diag $R/el_fmm_t1.csv 2> $R/el_fmm_t1.log
$X --direct --diag $R/el_direct_t1.csv 2> $R/el_direct_t1.log
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
