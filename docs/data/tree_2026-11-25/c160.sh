#!/bin/bash
# c160: exploration for issue 15's leapfrog_big step: the kept tree (--moved error and time; VX_KEEP_MOVE on
# the scenes), forced levels, the L2P and P2P variants, and an ncu per-kernel summary of 3 steps
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8 --n 1048576 --check 1000 --repeat 5"
for d in uniform rings; do
 run "$d fresh" $B/new/vortexfmm-bench $A --dist $d
 for m in 0.02 0.05 0.1 0.2; do
  run "$d moved $m kept" $B/new/vortexfmm-bench $A --dist $d --moved $m --keep-move 1
  run "$d moved $m built" $B/new/vortexfmm-bench $A --dist $d --moved $m --keep-move 0
 done
done
echo "bench $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | grep -v "^moved" | tail -4 >> $P; }
for round in 1 2; do
 for k in 0 0.05 0.3; do prof "big keep $k" VX_KEEP_MOVE=$k $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100; done
 for k in 0 0.3; do prof "lf60 keep $k" VX_KEEP_MOVE=$k $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 60; done
 for l in 4 6; do prof "big L$l" VX_KEEP_MOVE=0 VX_LEVELS=$l $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100; done
 for f in 0 1; do prof "big l2pfused $f" VX_KEEP_MOVE=0 VX_L2P_FUSED=$f $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100; done
 for p in fast2 fast4 base; do prof "big p2p $p" VX_KEEP_MOVE=0 VX_P2P=$p $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100; done
 for s in 0 2; do prof "big split $s" VX_KEEP_MOVE=0 VX_P2P_SPLIT=$s $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100; done
done
VX_DBG_MOVED=1 VX_KEEP_MOVE=0.3 timeout 60 $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 40 2>&1 | grep "^moved" > $R/moved_big.txt
VX_DBG_MOVED=1 VX_KEEP_MOVE=0.3 timeout 60 $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 2>&1 | grep "^moved" > $R/moved_lf.txt
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
VX_KEEP_MOVE=0 timeout 150 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3 > $R/ncu_big.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
