#!/bin/bash
# session 2026-11-25 call 7 (FMM_REG_AUTO the default): every scene reduced on the CPU backend to t = 10 (5 x 3 OpenMP
# threads); gpu_test_accuracy with its new band; the CPU leapfrog step (16 threads, 16384 tracers) default against the cap
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
$B/gpu_test_accuracy > $OUT/r/gpu_test_accuracy.txt 2>&1; echo "exit $?" >> $OUT/r/gpu_test_accuracy.txt
for v in "VX_REG_CORRECT=2" "VX_REG_CORRECT=0"; do
  echo "== $v"; env $v timeout 60 $B/vortexfmm --headless --scene leapfrog --backend cpu --tracers 16384 --steps 6 2>&1 | grep -E "step time|far field per" | cut -c1-330
done > $OUT/r/cpu_leapfrog_16t.txt 2>&1
( sleep $((540 - SECONDS)); pkill -INT -f 'vortexfmm --headless' ) & k=$!
s=$SECONDS
bash scripts/cpu_long_runs.sh $B/vortexfmm .gpu/cpulr > $OUT/r/cpu_table.txt 2>&1
echo "cpu runs $((SECONDS - s)) s, all $SECONDS s" > $OUT/r/time.txt
kill $k 2>/dev/null
cp -r .gpu/cpulr $OUT/r/
cd $OUT && tar czf all.tgz r && rm -rf r
