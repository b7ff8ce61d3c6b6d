#!/bin/bash
# c119 (f048d10): the fast P2P kernel with one target a thread (VX_P2P=fast1) against k_p2p (the Gaussian's default)
# on the Gaussian bench cases and the scenes' steps and frames, alternated, two rounds
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for E in VX_P2P=base VX_P2P=fast1; do
  run "$E r20 gauss 0.003" $E $B/vortexfmm-bench $A --dist rings --kernel gauss --sigma 0.003 --n 1048576 --repeat 5 --check 1000
  run "$E r20 gauss 0.01" $E $B/vortexfmm-bench $A --dist rings --kernel gauss --sigma 0.01 --n 1048576 --repeat 5 --check 1000
  run "$E u20 gauss 0.004" $E $B/vortexfmm-bench $A --kernel gauss --sigma 0.004 --n 1048576 --repeat 5 --check 1000
  run "$E u18 gauss 0.01 double" $E $B/vortexfmm-bench --backend cuda --json --quiet --precision double --order 8 --kernel gauss --sigma 0.01 --n 262144 --repeat 5 --check 500
 done
done
echo "bench $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for E in VX_P2P=base VX_P2P=fast1; do
  prof "big $E" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60 $E" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
  prof "big1080 $E" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
  prof "lf1080 $E" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
  prof "sr $E" $E $B/vortexfmm --headless --scene single_ring --backend cuda --steps 60
  prof "ho $E" $E $B/vortexfmm --headless --scene headon --backend cuda --steps 60
 done
done
for E in VX_P2P=base VX_P2P=fast1; do
 prof "lf1000 $E" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 1000
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
