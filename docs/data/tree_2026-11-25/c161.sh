#!/bin/bash
# c161: a step's later stages on its first tree (fmm_io.tree; float on the GPU keeps up to 0.1 of a leaf):
# every GPU test and every scene to t = 10 under MPS; the scenes' steps and 1080p frames alternated with
# VX_KEEP_MOVE=0 (every stage builds); the kept tree's error in double; sanitizers on k_moved
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
nvidia-cuda-mps-control -d
( for t in $B/gpu_test_*; do n=$(basename $t); s=$SECONDS; timeout 200 $t > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt ) &
bash $B/exp.sh $B/lr6.txt 7 330
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "runs $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do for k in 0 d; do
 if [ $k = d ]; then E=""; else E="VX_KEEP_MOVE=0"; fi
 prof "big keep $k" $E $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 [ $round -lt 3 ] && prof "lf60 keep $k" $E $B/new/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 [ $round -lt 3 ] && prof "big1080 keep $k" $E $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
done; done
for k in 0 d; do if [ $k = d ]; then E=""; else E="VX_KEEP_MOVE=0"; fi
 prof "big1080 1000 keep $k" $E $B/new/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 1000 --size 1920x1080
 prof "lf1080 keep $k" $E $B/new/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
done
for s in single_ring headon oblique; do prof "$s" $B/new/vortexfmm --headless --scene $s --backend cuda --steps 60; done
echo "steps $SECONDS s" >> $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --n 1048576 --check 1000 --repeat 5"
for o in "double --order 12" "double --order 8" "float --order 8"; do for m in 0.05 0.1; do
 run "$o moved $m kept" $B/new/vortexfmm-bench $A --precision $o --moved $m --keep-move 1
 run "$o moved $m built" $B/new/vortexfmm-bench $A --precision $o --moved $m --keep-move 0
done; done
echo "bench $SECONDS s" >> $R/time.txt
CS=/usr/local/cuda/bin/compute-sanitizer
timeout 150 $CS --tool memcheck $B/gpu_test_fmm_keep > $R/memcheck_keep.txt 2>&1; echo "exit $?" >> $R/memcheck_keep.txt
timeout 60 $CS --tool racecheck --kernel-name regex:k_moved $B/new/vortexfmm-bench --backend cuda --n 20000 --precision float --repeat 1 --moved 0.05 --keep-move 1 --quiet > $R/racecheck_moved.txt 2>&1; echo "exit $?" >> $R/racecheck_moved.txt
timeout 60 $CS --tool memcheck $B/new/vortexfmm-bench --backend cuda --n 20000 --precision double --repeat 1 --moved 0.05 --keep-move 1 --quiet --check 50 > $R/memcheck_bench.txt 2>&1; echo "exit $?" >> $R/memcheck_bench.txt
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
