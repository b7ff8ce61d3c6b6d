#!/bin/bash
# c156: the GPU's leaf floor off (fmm_ctx.leaf_floor = 0): every GPU test, every scene to t = 10 under MPS (their
# elements alone: the floor reaches them), then the scenes' steps with their tracers
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
nvidia-cuda-mps-control -d
( for t in $B/gpu_test_*; do n=$(basename $t); s=$SECONDS; timeout 200 $t > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt ) &
bash $B/exp.sh $B/lr6.txt 7 380
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "runs $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
prof "big" $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
prof "lf60" $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
for s in single_ring headon oblique; do prof "$s" $B/new/vortexfmm --headless --scene $s --backend cuda --steps 60; done
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
