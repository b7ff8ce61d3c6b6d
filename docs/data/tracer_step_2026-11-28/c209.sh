#!/bin/bash
# c209 (H100): the tracers' own step (tracer_every, docs/MATH.md §15). The GPU tests; --tracers 0
# against main's binaries (old/: 3de2b92's engine) to the bit; leapfrog's step with tracer_every 1, 2,
# 4 alternated; every scene 60 steps with 1 and 4; the 1080p frame; the tracers' gap at t = 1.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
D=docs/data/tracer_step_2026-11-28
R=$OUT/r; mkdir -p $R $OUT/ck; cat $H/new/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for t in gpu_test_vortex gpu_test_launch gpu_test_fmm gpu_test_fmm_keep gpu_test_render gpu_test_accuracy gpu_test_fmm_reg gpu_test_cost; do
  timeout 200 $H/new/$t > $R/$t.log 2>&1; echo "$t exit $?" >> $R/tests.txt; done
echo "tests $SECONDS s" > $R/time.txt
# --tracers 0: the new engine path is the old one (no tracers: tracer_every has nothing to do)
B=$R/bitwise.txt
for s in single_ring leapfrog headon oblique leapfrog_big; do
  for v in old new; do timeout 120 $H/$v/vortexfmm --headless --quiet --backend cuda --scene $s --tracers 0 --steps 40 --diag-every 1 --diag $R/bw_${s}_$v.csv > /dev/null 2>&1; done
  python3 - $R/bw_${s}_old.csv $R/bw_${s}_new.csv $s >> $B <<'PY'
import sys
def rows(p):
    L=[l.strip().split(',') for l in open(p) if not l.startswith('#')]
    keep=[i for i,c in enumerate(L[0]) if not c.startswith('ms_')]
    return [[r[i] for i in keep] for r in L[1:]], len(keep)
a,n=rows(sys.argv[1]); b,_=rows(sys.argv[2])
print(sys.argv[3], "rows", len(a), len(b), "columns", n, "equal" if a==b and len(a)>0 else "DIFFER")
PY
done
rm -f $R/bw_*.csv
echo "bitwise $SECONDS s" >> $R/time.txt
P=$R/speed.txt
sc() { tag=$1; shift; echo "== $tag" >> $P; timeout 150 env "$@" 2>&1 | grep -A1 'step time' >> $P; }
X="$H/new/vortexfmm --headless --backend cuda"
for round in 1 2; do
  for m in 1 2 4; do sc "leapfrog 60 m=$m" $X --scene leapfrog --steps 60 --tracer-every $m; done
  for m in 1 4; do sc "leapfrog t1 m=$m" $X --scene leapfrog --t-end 1 --tracer-every $m; done
  for s in single_ring headon oblique leapfrog_big; do for m in 1 4; do sc "$s 60 m=$m" $X --scene $s --steps 60 --tracer-every $m; done; done
done
echo "speed $SECONDS s" >> $R/time.txt
F=$R/frames.txt
for round in 1 2; do for m in 1 4; do echo "== leapfrog frames m=$m" >> $F
  timeout 150 $X --scene leapfrog --frames 300 --size 1920x1080 --tracer-every $m 2>&1 | grep -i "fps\|frame" | tail -3 >> $F; done; done
echo "frames $SECONDS s" >> $R/time.txt
# the tracers at t = 1: m = 2, 4 and two FMM perturbations of m = 1 (the elements in a call of their own; p = 10)
A="$X --quiet --scene leapfrog --t-end 1"
$A --tracer-every 1 --checkpoint $OUT/ck/m1.ckpt > $R/acc_m1.log 2>&1
$A --tracer-every 2 --checkpoint $OUT/ck/m2.ckpt > $R/acc_m2.log 2>&1
$A --tracer-every 4 --checkpoint $OUT/ck/m4.ckpt > $R/acc_m4.log 2>&1
VX_SPLIT_TARGETS=1 $A --tracer-every 1 --checkpoint $OUT/ck/split.ckpt > $R/acc_split.log 2>&1
$A --tracer-every 1 --order 10 --checkpoint $OUT/ck/p10.ckpt > $R/acc_p10.log 2>&1
cd $OUT/ck && python3 $OLDPWD/$D/ckpt_tracers.py m1.ckpt m2.ckpt m4.ckpt split.ckpt p10.ckpt > $R/gaps.txt 2>&1; cd $OLDPWD
rm -rf $OUT/ck
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
