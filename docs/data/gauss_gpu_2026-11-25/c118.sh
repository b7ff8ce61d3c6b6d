#!/bin/bash
# c118: f048d10: every scene to t = 10 on the H100 under MPS (lr6) beside gpu_test_vortex; the fast P2P kernel
# (VX_P2P=fast1|fast2) against k_p2p for the Gaussian scenes now that the pair is cheaper
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2; do
 for E in VX_P2P= VX_P2P=fast1 VX_P2P=fast2; do
  prof "big $E" $E $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
  prof "lf60 $E" $E $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 done
done
echo "steps $SECONDS s" > $R/time.txt
nvidia-cuda-mps-control -d
( s=$SECONDS; timeout 200 $B/gpu_test_vortex > $R/gpu_test_vortex.txt 2>&1; echo "== gpu_test_vortex exit $? wall $((SECONDS-s))s" > $R/tests.txt ) &
LIM=$((575 - SECONDS)); [ $LIM -gt 400 ] && LIM=400
bash $B/exp.sh $B/lr6.txt 7 $LIM
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
