#!/bin/bash
# c69: racecheck on k_m2l_tc (p = 6, one level) and on k_p2m_spec (float p = 8, with k_m2l_spec)
B=$PWD/.gpu/bin; export VX_ASSETS_DIR=$PWD/assets; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cd $R; cat $B/COMMIT > commit.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
echo "== racecheck k_p2m_spec float p=8 (VX_M2L=spec)" >> san.txt
VX_M2L=spec timeout 200 $CS --tool racecheck --kernel-name kns=k_p2m_spec $B/vortexfmm-bench --backend cuda --n 20000 --leaf 64 --repeat 1 --precision float --order 8 --quiet >> san.txt 2>&1; echo "rc=$? $SECONDS s" >> san.txt
echo "== racecheck k_m2l_tc float p=6 (VX_M2L=tc, level 3)" >> san.txt
VX_M2L=tc timeout 330 $CS --tool racecheck --kernel-name kns=k_m2l_tc $B/vortexfmm-bench --backend cuda --n 3000 --levels 3 --leaf 64 --repeat 1 --precision float --order 6 --quiet >> san.txt 2>&1; echo "rc=$? $SECONDS s" >> san.txt
cd $OUT && tar czf all.tgz r && rm -rf r
