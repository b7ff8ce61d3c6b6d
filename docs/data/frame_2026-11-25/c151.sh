#!/bin/bash
# c151: one interop mapping a frame (the point buffers and the opacity texture mapped and unmapped together, the
# packing deferred to the draw): gpu_test_render (+ memcheck), gpu_test_render_colour; 1080p frames prev / new
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for t in gpu_test_render gpu_test_render_colour; do timeout 100 $B/$t > $R/$t.txt 2>&1; echo "rc=$?" >> $R/$t.txt; done
timeout 200 $CS --tool memcheck $B/gpu_test_render > $R/mem_render.txt 2>&1; echo "rc=$?" >> $R/mem_render.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do
 for v in prev new; do
  prof "big1080 $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 done
done
for v in prev new; do
 prof "lf1080 $v" $B/$v/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
 prof "big1080 no-opacity $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080 --no-opacity
 prof "big1080 interop off $v" $B/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080 --interop off
done
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
