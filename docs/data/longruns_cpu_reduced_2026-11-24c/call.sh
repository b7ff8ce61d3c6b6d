#!/bin/bash
# session 2026-11-24b call 10: every scene reduced on the CPU backend to t = 10 (5 x 3 OpenMP threads); the dense M2L under racecheck
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
CU=/usr/local/cuda-13.0/bin
( VX_M2L=dense timeout -s INT 420 $CU/compute-sanitizer --tool racecheck $B/vortexfmm-bench --backend cuda --n 4000 --levels 3 --order 6 --precision float --leaf 64 --repeat 1 --check 10 > $OUT/r/race_p6f.txt 2>&1 ) & r1=$!
( VX_M2L=dense timeout -s INT 420 $CU/compute-sanitizer --tool racecheck $B/vortexfmm-bench --backend cuda --n 4000 --levels 3 --order 8 --precision double --leaf 64 --repeat 1 --check 10 > $OUT/r/race_p8d.txt 2>&1 ) & r2=$!
( sleep 490; pkill -INT -f 'vortexfmm --headless' ) & k=$!
s=$SECONDS
bash scripts/cpu_long_runs.sh $B/vortexfmm .gpu/cpulr > $OUT/r/cpu_table.txt 2>&1
echo "cpu runs $((SECONDS - s)) s" > $OUT/r/time.txt
kill $k 2>/dev/null
wait $r1 $r2
echo "all $SECONDS s" >> $OUT/r/time.txt
cp -r .gpu/cpulr $OUT/r/
cd $OUT && tar czf all.tgz r && rm -rf r
