#!/bin/bash
# session 2026-11-25 call 4: the leapfrog scene (float, 262144 tracers) with the capped tree against corrections within
# r_c at levels 3-5 (VX_REG_CORRECT, VX_LEVELS, VX_REG_TOL), two rounds; then the dense M2L (100 KB stages) under racecheck
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
CU=/usr/local/cuda-13.0/bin
timeout 300 bash -c '
B=.gpu/bin
for rnd in 1 2; do for v in "VX_LEVELS=0" "VX_REG_CORRECT=1" "VX_REG_CORRECT=1 VX_LEVELS=4" "VX_REG_CORRECT=1 VX_LEVELS=5" "VX_REG_CORRECT=1 VX_LEVELS=4 VX_REG_TOL=1e-5" "VX_REG_CORRECT=1 VX_LEVELS=5 VX_REG_TOL=1e-5"; do
  echo "== $v"; env $v $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 2>&1 | grep -E "step time|far field per" | cut -c1-330
done; done' > $OUT/r/leapfrog_rc.txt 2>&1
echo "scenes $SECONDS s" > $OUT/r/time.txt
VX_M2L=dense timeout -s INT 240 $CU/compute-sanitizer --tool racecheck $B/vortexfmm-bench --backend cuda --n 4000 --levels 3 --order 8 --precision float --leaf 64 --repeat 1 --check 10 > $OUT/r/race_p8f.txt 2>&1
echo "race exit $? $SECONDS s" >> $OUT/r/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
