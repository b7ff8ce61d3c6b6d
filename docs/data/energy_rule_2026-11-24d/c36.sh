#!/bin/bash
# session 2026-11-25 call 2: every scene reduced on the CPU backend to t = 10 (5 x 3 OpenMP threads) with the energy
# watch (ab89e2b); the dense M2L (final 100 KB stages) under racecheck and memcheck; four leapfrog_big time-step variants (MPS)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
CU=/usr/local/cuda-13.0/bin
nvidia-cuda-mps-control -d && echo mps on
( OMP_NUM_THREADS=1 $B/exp.sh $B/lr9.txt 4 440 ) & x=$!
( VX_M2L=dense timeout -s INT 300 $CU/compute-sanitizer --tool racecheck $B/vortexfmm-bench --backend cuda --n 4000 --levels 3 --order 8 --precision float --leaf 64 --repeat 1 --check 10 > $OUT/r/race_p8f.txt 2>&1
  VX_M2L=dense timeout -s INT 120 $CU/compute-sanitizer --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --order 8 --precision float --repeat 1 --check 10 > $OUT/r/mem_p8f.txt 2>&1
  timeout -s INT 200 $CU/compute-sanitizer --tool memcheck $B/gpu_test_m2l_dense > $OUT/r/mem_test_dense.txt 2>&1 ) & r1=$!
( sleep 480; pkill -INT -f 'vortexfmm --headless' ) & k=$!
s=$SECONDS
bash scripts/cpu_long_runs.sh $B/vortexfmm .gpu/cpulr > $OUT/r/cpu_table.txt 2>&1
echo "cpu runs $((SECONDS - s)) s" > $OUT/r/time.txt
wait $r1 $x
kill $k 2>/dev/null
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $OUT/r/time.txt
cp -r .gpu/cpulr $OUT/r/; mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt
cd $OUT && tar czf all.tgz r && rm -rf r
