#!/bin/bash
# c148: the renderer's reductions (bounding box, sums, total) a block at a time and the histogram's warp-aggregated
# atomics: gpu_test_render (+ memcheck, racecheck); leapfrog_big / leapfrog 1080p frames prev (c147's build) / new
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 100 $B/gpu_test_render > $R/gpu_test_render.txt 2>&1; echo "rc=$?" >> $R/gpu_test_render.txt
timeout 200 $CS --tool memcheck $B/gpu_test_render > $R/mem_render.txt 2>&1; echo "rc=$?" >> $R/mem_render.txt
timeout 200 $CS --tool racecheck $B/gpu_test_render > $R/race_render.txt 2>&1; echo "rc=$?" >> $R/race_render.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for v in prev new; do
  prof "big1080 $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 done
done
for v in prev new; do
 prof "lf1080 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
