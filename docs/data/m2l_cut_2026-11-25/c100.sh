#!/bin/bash
# c100: how sensitive leapfrog_big's breakdown is: GPU leapfrog_big and the CPU's reduced one with the cut off and at two other tau
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/runs; cat $B/COMMIT > $R/commit.txt
nvidia-cuda-mps-control -d
g() { tag=$1; shift; ( s=$SECONDS; echo "cmd: vortexfmm --headless --quiet $*" > $R/runs/$tag.log; timeout -s INT 300 env "$@" >> $R/runs/$tag.log 2>&1; echo "long_runs: wall $((SECONDS-s)) s, exit $?" >> $R/runs/$tag.log ) & }
for t in 0 0.05 0.2; do
 g leapfrog_big_t${t}__cuda__float VX_M2L_CUT=$t $B/vortexfmm --headless --quiet --scene leapfrog_big --backend cuda --tracers 0 --t-end 10 --diag-every 100 --diag $R/runs/leapfrog_big_t${t}__cuda__float.csv
done
for t in 0 0.05 0.2 0.1; do
 g lbred_t${t}__cpu__float OMP_NUM_THREADS=2 VX_M2L_CUT=$t $B/vortexfmm --headless --quiet --scene $B/lb_reduced.scene --backend cpu --tracers 0 --t-end 10 --diag $R/runs/lbred_t${t}__cpu__float.csv
done
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
