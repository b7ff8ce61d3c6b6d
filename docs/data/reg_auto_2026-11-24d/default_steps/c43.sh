#!/bin/bash
# session 2026-11-25 call 9 (binaries of df7a705): leapfrog's step with the fast P2P kernel for the Gaussian (VX_P2P=fast2,
# fast1) against the default k_p2p; the bench's rings at sigma = 0.003 / 0.01 with the default (auto) against --reg-cap
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
timeout 400 bash -c '
B=.gpu/bin
for rnd in 1 2; do for v in "VX_P2P=base" "VX_P2P=fast2" "VX_P2P=fast1"; do
  echo "== $v"; env $v $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 2>&1 | grep -E "step time" | cut -c1-250
done; done > $OUT/r/leapfrog_p2p.txt 2>&1
for s in 0.003 0.01; do for a in "" "--reg-cap"; do
  echo "== sigma $s $a"; $B/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8 --n 262144 --dist rings --kernel gauss --sigma $s --check 1000 --repeat 5 $a
done; done > $OUT/r/bench_rings_thin.txt 2>&1
'
cd $OUT && tar czf all.tgz r && rm -rf r
