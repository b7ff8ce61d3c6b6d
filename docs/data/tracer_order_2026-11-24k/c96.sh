#!/bin/bash
# c96: second round of the long step-time runs (old main, new with the tracers ordered, new with VX_TRACER_ORDER=0);
# every scene to t = 10 under MPS with the new binary (lr6)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 120 env "$@" 2>&1 | grep -E "step time|done" >> $P; }
prof "big5000 vortexfmm" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 5000
prof "big5000 old/vortexfmm" $B/old/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 5000
prof "big5000 order0" VX_TRACER_ORDER=0 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 5000
for v in vortexfmm old/vortexfmm; do prof "lf1000 $v" $B/$v --headless --scene leapfrog --backend cuda --steps 1000; done
echo "steps $SECONDS s" > $R/time.txt
cd $B/../..
nvidia-cuda-mps-control -d
LIM=$((560 - SECONDS)); [ $LIM -gt 300 ] && LIM=300
bash $B/exp.sh $B/lr6.txt 7 $LIM
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
