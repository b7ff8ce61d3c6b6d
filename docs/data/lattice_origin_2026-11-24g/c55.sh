#!/bin/bash
# session 2026-11-24g call 6: leapfrog_big as now shipped (relax 0.01) to t = 10 and to t = 0.7 with rows every 0.002 (the
# reduced model), its step time with the tracers, and the reduced leapfrog_big on the CPU with the scene's relaxation and
# with the reduced scene's old 0.1
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
for r in 1 2; do echo "== leapfrog_big $r"; timeout 60 $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100 2>&1 | grep -E "step time" | cut -c1-250; done > $OUT/r/steps.txt 2>&1
echo "steps $SECONDS s" > $OUT/r/time.txt
( $B/exp.sh $B/lr11.txt 2 480 ) &
export OMP_NUM_THREADS=3
( timeout -s INT 480 /usr/bin/python3 scripts/long_runs.py --reduced leapfrog_big --backend cpu --t-end 10 --jobs 1 --exe $B/vortexfmm --out $OUT/r/cpu > $OUT/r/cpu_table.md 2>&1 ) &
timeout -s INT 480 /usr/bin/python3 scripts/long_runs.py --reduced leapfrog_big --backend cpu --t-end 10 --jobs 1 --exe $B/vortexfmm --out $OUT/r/cpu01 --scale="--relax 0.1" > $OUT/r/cpu01_table.md 2>&1
wait
echo "all $SECONDS s" >> $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
