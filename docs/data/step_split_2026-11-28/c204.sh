#!/bin/bash
# c204 (H100, 924e6b3's binaries = main's engine): where leapfrog's step goes. 60 steps each, alternated,
# two rounds: as shipped; VX_SPLIT_TARGETS=1 (tracers in a call of their own); --tracers 0 with the FMM and
# with --direct; the tracers alone cost (--tracers 262144 with --direct is too slow: 3 steps). Then an
# nsys timeline of 20 steps if nsys is there.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
P=$R/speed.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 90 env "$@" 2>&1 | grep -A1 'step time' >> $P; }
X="$H/exp/vortexfmm --headless --scene leapfrog --backend cuda"
for round in 1 2; do
 sc "ship" $X --steps 60
 sc "split" VX_SPLIT_TARGETS=1 $X --steps 60
 sc "el fmm" $X --steps 60 --tracers 0
 sc "el direct" $X --steps 60 --tracers 0 --direct
 sc "el fmm L3" VX_LEVELS=3 $X --steps 60 --tracers 0
done
sc "direct with tracers 16384" $X --steps 20 --tracers 16384 --direct
(which nsys ncu; ls /usr/local/cuda*/bin 2>/dev/null | grep -i nsys; ls /opt/nvidia 2>/dev/null) > $R/tools.txt 2>&1
NS=$(which nsys 2>/dev/null || ls /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/bin/nsys 2>/dev/null | head -1)
if [ -n "$NS" ]; then
  $NS profile -o $R/lf --force-overwrite true -t cuda $X --steps 20 > $R/nsys.log 2>&1
  $NS stats -r cuda_gpu_kern_sum,cuda_api_sum --format csv -o $R/lf $R/lf.nsys-rep >> $R/nsys.log 2>&1
  $NS export --type sqlite -o $R/lf.sqlite $R/lf.nsys-rep >> $R/nsys.log 2>&1
  rm -f $R/lf.nsys-rep
fi
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
