#!/bin/bash
# c233 (H200): what the elements' own calls cost: d15f88e's binary (new) against d0b89e9's (old),
# alternated, two rounds, one GPU: leapfrog --steps 60 and --t-end 1, leapfrog_big --steps 300,
# and leapfrog_big / leapfrog at 1920x1080 --frames 300.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
P=$OUT/speed.txt; cat $H/exp/COMMIT > $OUT/commit.txt; nvidia-smi -L > $OUT/device.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 150 "$@" 2>&1 | grep -A1 'step time\|frame time' >> $P; }
for round in 1 2; do
  for b in vortexfmm vortexfmm_old; do
    X="$H/exp/$b --headless --backend cuda"
    sc "$b leapfrog 60" $X --scene leapfrog --steps 60
    sc "$b leapfrog t1" $X --scene leapfrog --t-end 1
    sc "$b leapfrog_big 300" $X --scene leapfrog_big --steps 300
    sc "$b leapfrog_big frames" $X --scene leapfrog_big --frames 300 --size 1920x1080
    sc "$b leapfrog frames" $X --scene leapfrog --frames 300 --size 1920x1080
  done
done
echo "all $SECONDS s" >> $P
cat $P
