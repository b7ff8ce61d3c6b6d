#!/bin/bash
# c172 (H100): the compiled-in CUDA float table (c171's runs refitted): the GPU tests that run the
# engine (gpu_test_cost with its kept-choice check; the twins pinned to the leaf-size rule); the
# calibration again with this commit's fit; the scenes with the default rule (the cost model) against
# VX_LEVEL_RULE=leaf, alternated
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for n in gpu_test_cost gpu_test_fmm gpu_test_fmm_keep gpu_test_fmm_reg gpu_test_vortex; do s=$SECONDS; timeout 150 $H/base/$n > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
timeout 120 $H/base/vortexfmm-bench --backend cuda --precision float --order 8 --calibrate --repeat 5 > $R/cost_cuda.txt 2> $R/calibrate.log
echo "calibrated $SECONDS s" >> $R/time.txt
P=$R/scenes.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 90 env "$@" 2>&1 | grep -v "^ *$" | tail -6 >> $P; }
for round in 1 2; do for rule in auto leaf; do
 sc "lfbig100 $rule" VX_LEVEL_RULE=$rule $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 sc "lf60 $rule" VX_LEVEL_RULE=$rule $H/base/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
done; done
for rule in auto leaf; do
 sc "lfbig1080 $rule" VX_LEVEL_RULE=$rule $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 for s in headon oblique single_ring; do sc "$s $rule" VX_LEVEL_RULE=$rule $H/base/vortexfmm --headless --scene $s --backend cuda --steps 60; done
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
