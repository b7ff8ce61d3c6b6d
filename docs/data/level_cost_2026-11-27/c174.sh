#!/bin/bash
# c174 (H100): every scene to t = 10 with the cost model as the GPU's default rule (float scenes), under
# MPS, with every GPU test beside them; four issue-10 experiments; a restart from a checkpoint against
# the uninterrupted run (GPU float, the kept level choice forgotten at the checkpoint)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R; cat $B/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
nvidia-cuda-mps-control -d
( for t in $B/gpu_test_*; do n=$(basename $t); s=$SECONDS; timeout 200 $t > $R/$n.txt 2>&1; echo "== $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt ) &
bash $B/exp.sh $B/lr7.txt 11 470
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "runs $SECONDS s" > $R/time.txt
V=$B/vortexfmm; C=$OUT/rs; mkdir -p $C
$V --headless --quiet --scene leapfrog --backend cuda --steps 200 --diag $C/full.csv --diag-every 10 --checkpoint-every 100 --checkpoint $C/lf.ckpt > $C/full.log 2>&1
cp $C/lf.ckpt $C/lf200.ckpt
$V --headless --quiet --scene leapfrog --backend cuda --steps 100 --diag $C/first.csv --diag-every 10 --checkpoint $C/lf100.ckpt > $C/first.log 2>&1
$V --headless --quiet --restart $C/lf100.ckpt --steps 200 --diag $C/rest.csv > $C/rest.log 2>&1
python3 - $C/full.csv $C/rest.csv > $R/restart.txt 2>&1 <<'PY'
import csv, sys
def rows(f):
    r = [l for l in open(f) if not l.startswith('#')]; x = list(csv.reader(r)); return x[0], {int(a[0]): a for a in x[1:]}
h, a = rows(sys.argv[1]); h2, b = rows(sys.argv[2])
common = sorted(set(a) & set(b))
diff = sorted({h[k] for s in common for k, (p, q) in enumerate(zip(a[s], b[s])) if p != q and not h[k].startswith('ms_')})
print('restart at step 100 against the run through: steps compared', common[0] if common else None, '..', common[-1] if common else None, len(common), 'rows; non-timing columns differing:', diff)
PY
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && rm -rf rs ckpt && tar czf all.tgz r runs && rm -rf r runs
