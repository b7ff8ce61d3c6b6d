#!/bin/bash
# session 2026-11-24g call 3: every scene on the CPU backend at reduced size to t = 10 (lattice through the rings' mean
# centre, leapfrog's through its rear ring's), and leapfrog on the GPU to t = 10 with the final scene, beside them
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
cat $B/COMMIT > $OUT/r/commit.txt
( $B/exp.sh $B/lr8.txt 2 400 ) &
timeout -s INT 555 bash scripts/cpu_long_runs.sh $B/vortexfmm $OUT/r/cpu > $OUT/r/cpu_runs.txt 2>&1
echo "cpu exit $? all $SECONDS s" >> $OUT/r/time.txt
wait
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
