#!/bin/bash
# c87: leapfrog_big coarsened once mid-run (VX_COARSEN experiment patch)
export VX_ASSETS_DIR=$PWD/assets; B=$PWD/.gpu/bin; . $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt
# per-run environment through a wrapper keyed on the tag
nvidia-cuda-mps-control -d
export OUT_R=$R
run() { tag=$1; shift; ( export "$@"; s=$(date +%s); echo "cmd: $(grep "^$tag|" $B/lr87.txt | cut -d'|' -f2) env: $*" > $R/$tag.log
  timeout -s INT -k 20 540 $B/vortexfmm --headless --quiet $(grep "^$tag|" $B/lr87.txt | cut -d'|' -f2) --diag $R/$tag.csv --checkpoint $R/$tag.ckpt >> $R/$tag.log 2>&1; rc=$?
  echo "wall $(( $(date +%s) - s )) s, exit $rc" >> $R/$tag.log ) & }
run C35 "VX_COARSEN=3.5 0.012 0.008 10 1e-4 1e-3 0.1 1 10 1e-3"
run C40 "VX_COARSEN=4.0 0.012 0.008 10 1e-4 1e-3 0.1 1 10 1e-3"
run C44 "VX_COARSEN=4.4 0.012 0.008 10 1e-4 1e-3 0.1 1 10 1e-3"
run C40n2 "VX_COARSEN=4.0 0.012 0.008 10 2e-4 1e-3 0.1 1 10 1e-3"
run C40s8 "VX_COARSEN=4.0 0.008 0.0055 10 1e-4 5e-4 0.1 1 10 1e-3"
run C40s16 "VX_COARSEN=4.0 0.016 0.011 10 1e-4 1e-3 0.1 1 10 1e-3"
wait
echo quit | nvidia-cuda-mps-control
rm -f $R/*.ckpt
cd $OUT && tar czf all.tgz r && rm -rf r
