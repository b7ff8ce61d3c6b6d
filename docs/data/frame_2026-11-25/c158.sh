#!/bin/bash
# c158: the target leaves unsorted, the gradient targets ranked first (oct_params.tgt_split): the GPU tests; every
# scene's 60 steps with tracers prev / new to the bit (diagnostics columns 1-20; the end checkpoints of the
# unremeshed scenes); leapfrog_big and leapfrog steps and 1080p frames, alternated
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/bit; cat $B/COMMIT > $R/commit.txt
for t in $B/gpu_test_*; do n=$(basename $t); s=$SECONDS; timeout 150 $t > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
for cfg in "leapfrog 262144" "leapfrog_big 1048576" "headon 4096" "oblique 4096" "single_ring 4096"; do set -- $cfg
 for v in prev new; do timeout 60 $B/$v/vortexfmm --headless --quiet --scene $1 --backend cuda --tracers $2 --steps 60 --diag-every 5 --diag $R/bit/$1_$v.csv --checkpoint $R/bit/$1_$v.ckpt > $R/bit/$1_$v.log 2>&1; done
 cmp -s <(grep -v "^#" $R/bit/$1_prev.csv | cut -d, -f1-20) <(grep -v "^#" $R/bit/$1_new.csv | cut -d, -f1-20) && echo "$1 prev vs new: columns 1-20 same" || echo "$1 prev vs new: DIFF"
 cmp -s $R/bit/$1_prev.ckpt $R/bit/$1_new.ckpt && echo "$1 checkpoints same" || echo "$1 checkpoints differ: $(cmp $R/bit/$1_prev.ckpt $R/bit/$1_new.ckpt | head -1)"
done > $R/bitwise.txt
rm -f $R/bit/*.ckpt
echo "bit $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do
 for v in prev new; do prof "big $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100; done
done
for round in 1 2; do
 for v in prev new; do
  prof "lf60 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
  prof "big1080 $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 done
done
for v in prev new; do prof "big1080 1000 frames $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 1000 --size 1920x1080; done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
