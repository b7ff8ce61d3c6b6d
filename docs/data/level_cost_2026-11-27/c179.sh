#!/bin/bash
# c179 (H100): a CUDA double table (--calibrate --precision double, p = 8) tried on the double scenes
# through vortexfmm --cost-file (the cost model) against the default (the leaf-size rule in double),
# and on the bench's double cases; not compiled in
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
timeout 100 $B/vortexfmm-bench --backend cuda --precision double --order 8 --calibrate --repeat 3 > $R/cost_cuda_double.txt 2> $R/calibrate.log
echo "calibrated $SECONDS s" > $R/time.txt
C="--cost-file $R/cost_cuda_double.txt"
P=$R/scenes.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 40 "$@" 2>&1 | grep -v "^ *$" | grep 'median' >> $P; }
for round in 1 2; do for s in headon oblique single_ring; do
 sc "$s leaf" $B/vortexfmm --headless --scene $s --backend cuda --steps 60
 sc "$s cost" $B/vortexfmm --headless --scene $s --backend cuda --steps 60 $C
done; done
echo "scenes $SECONDS s" >> $R/time.txt
BB="$B/vortexfmm-bench --backend cuda --precision double --json --quiet --repeat 5"
for a in "--order 12 --n 1048576 --dist uniform" "--order 8 --n 262144 --dist rings" "--order 8 --n 65536 --dist uniform"; do
 for r in leaf cost; do echo "== $a $r" >> $R/bench.txt; timeout 40 $BB $a --level-rule $r $C >> $R/bench.txt 2>&1; done
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
