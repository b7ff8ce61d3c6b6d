#!/bin/bash
# c91: k_p2p_fast with the singular kernel's one select and the traceless H: GPU tests; bench against -t256 and f91851d (old/)
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cd $R; cat $B/COMMIT > commit.txt
for t in gpu_test_p2p_fast gpu_test_fmm; do timeout 200 $B/$t > $t.txt 2>&1; echo "rc=$?" >> $t.txt; done
echo "tests $SECONDS s" > time.txt
run() { tag=$1; shift; echo "== $tag" >> bench.txt; timeout 90 env "$@" >> bench.txt 2>&1 || echo "rc=$? $tag" >> bench.txt; }
A="--backend cuda --json --quiet --precision float --order 8"
for round in 1 2; do
 for v in old t256 new; do
  BB=$B/vortexfmm-bench; [ $v = t256 ] && BB=$B/vortexfmm-bench-t256; [ $v = old ] && BB=$B/old/vortexfmm-bench
  run "$v u20 float" $BB $A --n 1048576 --repeat 7 --check 1000
  run "$v r20 float" $BB $A --dist rings --n 1048576 --repeat 7 --check 1000
  run "$v u24 float" $BB $A --n 16777216 --repeat 3 --check 30
  run "$v u20 double" $BB --backend cuda --json --quiet --precision double --order 12 --n 1048576 --repeat 5 --check 1000
 done
done
run "new u20 float vs direct" $B/vortexfmm-bench $A --n 1048576 --repeat 3 --check 300 --vs-direct
echo "bench $SECONDS s" >> time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
