#!/bin/bash
# c164: the renderer's three reductions through one block step (rd_block_reduce, CUB's BlockReduce):
# gpu_test_render and gpu_test_render_colour, under memcheck and racecheck too; leapfrog_big's 1080p
# frames (the reductions' share of the render line)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for t in gpu_test_render gpu_test_render_colour; do s=$SECONDS; timeout 100 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do timeout 150 $CS --tool $tool $B/gpu_test_render > $R/${tool}_render.txt 2>&1; echo "exit $?" >> $R/${tool}_render.txt; done
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do prof "big1080" $B/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080; done
prof "lf1080" $B/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
echo "all $SECONDS s" > $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
