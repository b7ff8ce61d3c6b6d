#!/bin/bash
# c106: the tolerance 10^-(3+p/4) alone (the near-field cut reverted): GPU twin tests; leapfrog steps old/new to t = 2;
# every scene to t = 10 on the H100 under MPS (lr6)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
for t in gpu_test_vortex gpu_test_fmm_reg gpu_test_fmm gpu_test_accuracy; do s=$SECONDS; timeout 150 $B/$t > $R/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -5 >> $P; }
for v in old new; do
 X=$B/vortexfmm; [ $v = old ] && X=$B/old/vortexfmm
 prof "lf60 $v" $X --headless --scene leapfrog --backend cuda --steps 60
 prof "lf1000 $v" $X --headless --scene leapfrog --backend cuda --steps 1000 --diag $R/lf1000_$v.csv --diag-every 50
done
echo "steps $SECONDS s" >> $R/time.txt
nvidia-cuda-mps-control -d
LIM=$((570 - SECONDS)); [ $LIM -gt 330 ] && LIM=330
bash $B/exp.sh $B/lr6.txt 7 $LIM
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
mv $OUT/runs $R/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
