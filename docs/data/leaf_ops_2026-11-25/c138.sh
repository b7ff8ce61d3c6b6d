#!/bin/bash
# c138: the Gaussian's fast P2P in two passes a run of 32 sources (far pairs straight-line, near ones after):
# tests; scenes' steps mid/new alternated; Gaussian bench; ncu of k_p2p_fast in leapfrog_big
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_p2p_fast gpu_test_fmm_reg gpu_test_fmm gpu_test_leaf_ops; do s=$SECONDS; timeout 200 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in mid new; do
  prof "big $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
  prof "sr60 $v" $B/$v/vortexfmm --headless --scene single_ring --backend cuda --steps 60
  prof "ho60 $v" $B/$v/vortexfmm --headless --scene headon --backend cuda --steps 60
 done
done
for v in mid new; do prof "big1080 $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080; done
echo "steps $SECONDS s" >> $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in mid new; do
  run "$v gr20" $B/$v/vortexfmm-bench $A --dist rings --n 1048576 --kernel gauss --sigma 0.003 --repeat 5 --check 100
  run "$v gu20" $B/$v/vortexfmm-bench $A --n 1048576 --kernel gauss --sigma 0.004 --repeat 5 --check 100
  run "$v gd18" $B/$v/vortexfmm-bench --backend cuda --json --quiet --precision double --order 8 --n 262144 --kernel gauss --sigma 0.01 --repeat 5 --check 100
 done
done
echo "bench $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for v in mid new; do timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big_$v.txt 2>&1; done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
