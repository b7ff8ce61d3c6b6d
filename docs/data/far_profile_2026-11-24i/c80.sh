#!/bin/bash
# c80: target leaves unsorted where k_p2p runs (tgt_any_order): GPU tests; every scene 60 steps with its tracers, old (01af103) vs new, diagnostics and checkpoints (tracer positions too) compared; step times; ncu
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_octree gpu_test_fmm gpu_test_fmm_reg gpu_test_accuracy gpu_test_m2l_spec gpu_test_vortex; do s=$SECONDS; timeout 120 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for sc in leapfrog leapfrog_big single_ring headon oblique; do
 for v in vortexfmm_old vortexfmm; do
  timeout 90 $B/$v --headless --quiet --scene $sc --backend cuda --steps 60 --diag-every 5 --diag $R/bit/${sc}_$v.csv --checkpoint-every 60 --checkpoint $R/bit/${sc}_$v.ckpt > $R/bit/${sc}_$v.log 2>&1
 done
 d=$(cmp -s <(grep -v "^#" $R/bit/${sc}_vortexfmm_old.csv | cut -d, -f1-14) <(grep -v "^#" $R/bit/${sc}_vortexfmm.csv | cut -d, -f1-14) && echo same || echo DIFF)
 c=$(cmp -s $R/bit/${sc}_vortexfmm_old.ckpt $R/bit/${sc}_vortexfmm.ckpt && echo same || echo DIFF)
 echo "$sc diag $d checkpoint $c ($(stat -c %s $R/bit/${sc}_vortexfmm.ckpt) bytes)"
done > $R/bitwise.txt
rm -f $R/bit/*.ckpt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in vortexfmm_old vortexfmm; do
  prof "big $v" $B/$v --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf $v" $B/$v --headless --scene leapfrog --backend cuda --steps 60
 done
done
for round in 1 2; do
 for v in vortexfmm_old vortexfmm; do
  prof "big1080 $v" $B/$v --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf1080 $v" $B/$v --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
 done
done
/usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum --print-summary per-kernel $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
