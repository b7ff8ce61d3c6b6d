#!/bin/bash
# c73: GPU tests on HEAD; scene step profiles (M2L by level) under VX_M2L auto/tc/spec; every scene to t = 10 (lr6, MPS)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_m2l_spec gpu_test_fmm gpu_test_render_colour gpu_test_vortex gpu_test_m2l_dense; do s=$SECONDS; timeout 90 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 env "$@" 2>&1 | grep -v "^ *$" | tail -6 >> $P; }
for round in 1 2; do
 prof "big auto" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60
 prof "big tc" VX_M2L=tc $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60
 prof "big spec" VX_M2L=spec $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60
 prof "lf auto" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40
 prof "lf tc" VX_M2L=tc $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40
done
prof "big L6" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60 --levels 6
prof "big L4" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60 --levels 4
prof "lf L5" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 --levels 5
prof "lf L3" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 --levels 3
prof "big t0" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60 --tracers 0
prof "lf t0" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 --tracers 0
echo "tests+prof $SECONDS s" > $R/time.txt
cd $B/../..
nvidia-cuda-mps-control -d
LIM=$((535 - SECONDS)); [ $LIM -gt 300 ] && LIM=300
bash $B/exp.sh $B/lr6.txt 7 $LIM
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
