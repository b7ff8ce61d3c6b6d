#!/bin/bash
# session 2026-11-24b call 7: leapfrog with the lattice aligned on the rings' axis (h = 1/60, 1/80), then the demo's step
# time with its tracers at t = 2 for h = 0.02 and 1/60 (solo)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
for h in 0.02 0.0166667; do for r in 1 2; do
  timeout 60 $B/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 2 --diag-every 50 --remesh-h $h --diag $OUT/r/step_h${h}_$r.csv > $OUT/r/step_h${h}_$r.log 2>&1
done; done
echo "steps $SECONDS s" > $OUT/r/time.txt
nvidia-cuda-mps-control -d && echo mps on
$B/exp.sh $B/imp2.txt 6 $((470 - SECONDS))
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
