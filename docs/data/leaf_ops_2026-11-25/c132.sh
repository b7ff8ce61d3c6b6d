#!/bin/bash
# c132: P2M a warp a leaf (k_p2m_spec, VX_P2M_WL), combine fused into L2P: bench prev/new alternated; WL sweep; tests
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_fmm gpu_test_accuracy; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in prev new; do
  BB=$B/$v/vortexfmm-bench
  run "$v u20" $BB $A --n 1048576 --repeat 7 --check 300
  run "$v r20" $BB $A --dist rings --n 1048576 --repeat 7 --check 300
  run "$v u22" $BB $A --n 4194304 --repeat 3 --check 50
  run "$v r22" $BB $A --dist rings --n 4194304 --repeat 3 --check 50
  run "$v d20" $BB --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 3 --check 100
 done
done
echo "bench $SECONDS s" > $R/time.txt
for w in 1 2 4 8; do
 run "wl$w u20" VX_P2M_WL=$w $B/new/vortexfmm-bench $A --n 1048576 --repeat 7 --check 10
 run "wl$w r20" VX_P2M_WL=$w $B/new/vortexfmm-bench $A --dist rings --n 1048576 --repeat 7 --check 10
 run "wl$w serial u20" VX_FMM_SERIAL=1 VX_P2M_WL=$w $B/new/vortexfmm-bench $A --n 1048576 --repeat 7 --check 10
done
echo "wl $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in prev new; do
  prof "big $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
