#!/bin/bash
# c75: the L2P derivative kernel by (axis, degree): bitwise against the old binary (1ebf00c), GPU tests, step times old/new, VX_P2P on leapfrog_big, ncu
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_fmm gpu_test_m2l_spec gpu_test_accuracy gpu_test_vortex; do s=$SECONDS; timeout 90 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for sc in leapfrog leapfrog_big single_ring headon oblique; do
 for v in vortexfmm_old vortexfmm; do
  timeout 60 $B/$v --headless --quiet --scene $sc --backend cuda --tracers 4096 --steps 60 --diag-every 5 --diag $R/bit/${sc}_$v.csv > $R/bit/${sc}_$v.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/${sc}_vortexfmm_old.csv | cut -d, -f1-14) <(grep -v "^#" $R/bit/${sc}_vortexfmm.csv | cut -d, -f1-14) && echo "$sc same" || echo "$sc DIFF"
done > $R/bitwise.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 60 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in vortexfmm_old vortexfmm; do
  prof "big $v" $B/$v --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf $v" $B/$v --headless --scene leapfrog --backend cuda --steps 60
 done
 for pp in fast1 fast2 fast4; do prof "big P2P=$pp" VX_P2P=$pp $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100; done
done
for round in 1 2; do
 for v in vortexfmm_old vortexfmm; do
  prof "big1080 $v" $B/$v --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 done
done
/usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum --print-summary per-kernel -k regex:k_l2p $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big.txt 2>&1
/usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum --print-summary per-kernel -k regex:k_l2p $B/vortexfmm_old --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big_old.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
