#!/bin/bash
# c163: the kept tree (78874ef) on the H100: every GPU test and every scene to t = 10 under MPS;
# leapfrog_big's and leapfrog's steps and 1080p frames alternated with VX_KEEP_MOVE=0 (every stage
# builds); issue 15's bench figures (2^20 uniform/rings float p 8, double p 12, 2^24, FMM vs direct);
# the kept tree's error; sanitizers on k_moved and gpu_test_fmm_keep
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
nvidia-cuda-mps-control -d
( for t in $B/gpu_test_*; do n=$(basename $t); s=$SECONDS; timeout 200 $t > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt ) &
bash $B/exp.sh $B/lr6.txt 7 320
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "runs $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do for k in 0 d; do
 if [ $k = d ]; then E=""; else E="VX_KEEP_MOVE=0"; fi
 prof "big keep $k" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 prof "big1080 keep $k" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 [ $round -lt 3 ] && prof "lf60 keep $k" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
done; done
for k in 0 d; do if [ $k = d ]; then E=""; else E="VX_KEEP_MOVE=0"; fi
 prof "big1080 1000 keep $k" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 1000 --size 1920x1080
done
echo "steps $SECONDS s" >> $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --check 1000 --repeat 7"
run "u20 float p8" $B/vortexfmm-bench $A --n 1048576 --precision float --order 8
run "r20 float p8" $B/vortexfmm-bench $A --n 1048576 --dist rings --precision float --order 8
run "u20 double p12" $B/vortexfmm-bench $A --n 1048576 --precision double --order 12
run "u24 float p8" $B/vortexfmm-bench --backend cuda --json --quiet --check 300 --repeat 5 --n 16777216 --precision float --order 8
run "u20 float p8 vs direct" $B/vortexfmm-bench --backend cuda --json --quiet --repeat 3 --n 1048576 --precision float --order 8 --vs-direct
for d in uniform rings; do for m in 0.05 0.1; do for k in 1 0; do
 run "$d moved $m keep $k" $B/vortexfmm-bench $A --n 1048576 --dist $d --precision float --order 8 --moved $m --keep-move $k
done; done; done
echo "bench $SECONDS s" >> $R/time.txt
CS=/usr/local/cuda/bin/compute-sanitizer
timeout 150 $CS --tool memcheck $B/gpu_test_fmm_keep > $R/memcheck_keep.txt 2>&1; echo "exit $?" >> $R/memcheck_keep.txt
for p in float double; do
 timeout 60 $CS --tool racecheck --kernel-name kns=k_moved $B/vortexfmm-bench --backend cuda --n 20000 --precision $p --repeat 1 --moved 0.05 --keep-move 1 --quiet > $R/racecheck_moved_$p.txt 2>&1; echo "exit $?" >> $R/racecheck_moved_$p.txt
done
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
