#!/bin/bash
# c95: the tracers ordered for the engine every 100 steps (new) against main (old): GPU tests; every scene 60 steps
# bitwise; step times over 100, 2500 and 5000 steps and 1080p frames, alternated
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_tracer_order gpu_test_launch gpu_test_vortex; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
for sc in leapfrog leapfrog_big single_ring headon oblique; do
 for v in old/vortexfmm vortexfmm; do
  tg=$(basename $(dirname $B/$v))
  timeout 60 $B/$v --headless --quiet --scene $sc --backend cuda --tracers 4096 --steps 250 --diag-every 10 --diag $R/bit/${sc}_$tg.csv > $R/bit/${sc}_$tg.log 2>&1
 done
 cmp -s <(grep -v "^#" $R/bit/${sc}_old.csv | cut -d, -f1-14) <(grep -v "^#" $R/bit/${sc}_bin.csv | cut -d, -f1-14) && echo "$sc same" || echo "$sc DIFF"
done > $R/bitwise.txt
echo "tests+bit $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 120 env "$@" 2>&1 | grep -v "^ *$" | tail -3 >> $P; }
for round in 1 2; do
 for v in old/vortexfmm vortexfmm; do
  prof "big $v" $B/$v --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf $v" $B/$v --headless --scene leapfrog --backend cuda --steps 60
  prof "big1080 $v" $B/$v --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 done
done
for v in old/vortexfmm vortexfmm; do
 prof "big5000 $v" $B/$v --headless --scene leapfrog_big --backend cuda --steps 5000 --diag $R/big5000_$(basename $(dirname $B/$v)).csv --diag-every 100
 prof "lf1000 $v" $B/$v --headless --scene leapfrog --backend cuda --steps 1000
done
prof "big5000 order0" VX_TRACER_ORDER=0 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 5000
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
