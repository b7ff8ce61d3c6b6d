#!/bin/bash
# c165 (an H100 asked by name): issue 15's figures with the final code (base: a61e6c5) on the card
# the issue names -- leapfrog_big's steps and 1080p frames, default against VX_KEEP_MOVE=0, alternated;
# 2^20 bench; gpu_test_fmm_keep and gpu_test_render -- and k_corr's queue scanned by warp 0 (exp)
# against base: gpu_test_fmm_reg, gpu_test_fmm_keep, gpu_test_accuracy; leapfrog's steps alternated;
# scenes' diagnostics and a Gaussian bench's targets compared bit for bit
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
t1() { v=$1; n=$2; s=$SECONDS; timeout 120 $H/$v/$n > $R/${v}_$n.txt 2>&1; echo "== $v $n exit $? wall $((SECONDS-s))s"; }
{ for n in gpu_test_fmm_keep gpu_test_render; do t1 base $n; done; for n in gpu_test_fmm_reg gpu_test_fmm_keep gpu_test_accuracy; do t1 exp $n; done; } > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do
 prof "big base keep d" $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 prof "big base keep 0" VX_KEEP_MOVE=0 $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100
 prof "lf60 base" $H/base/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 prof "lf60 exp" $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
done
for round in 1 2; do
 prof "big1080 base keep d" $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
 prof "big1080 base keep 0" VX_KEEP_MOVE=0 $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 300 --size 1920x1080
done
prof "big1080 1000 base keep d" $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 1000 --size 1920x1080
prof "big1080 1000 base keep 0" VX_KEEP_MOVE=0 $H/base/vortexfmm --headless --scene leapfrog_big --backend cuda --frames 1000 --size 1920x1080
echo "steps $SECONDS s" >> $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
A="--backend cuda --json --quiet --check 1000 --repeat 7 --n 1048576 --precision float --order 8"
run "u20 base" $H/base/vortexfmm-bench $A
run "r20 base" $H/base/vortexfmm-bench $A --dist rings
G="--backend cuda --json --quiet --repeat 7 --n 262144 --dist rings --precision float --order 8 --kernel gauss --sigma 0.02"
for v in base exp base exp; do run "gauss $v" $H/$v/vortexfmm-bench $G; done
for v in base exp; do $H/$v/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist rings --precision float --kernel gauss --sigma 0.02 --dump $OUT/dump_$v.csv > /dev/null 2>&1; done
cmp $OUT/dump_base.csv $OUT/dump_exp.csv > $R/bitwise.txt 2>&1 && echo "gauss dump: identical" >> $R/bitwise.txt
for s in leapfrog headon oblique single_ring; do for v in base exp; do
 timeout 60 $H/$v/vortexfmm --headless --quiet --scene $s --backend cuda --steps 40 --diag $OUT/d_${s}_$v.csv --diag-every 5 > /dev/null 2>&1
done
 python3 -c "
import csv,sys
def rd(f): r=[l for l in open(f) if not l.startswith('#')]; x=list(csv.reader(r)); return x[0],x[1:]
h,a=rd(sys.argv[1]); h2,b=rd(sys.argv[2])
d=sorted({h[k] for ra,rb in zip(a,b) for k,(p,q) in enumerate(zip(ra,rb)) if p!=q and not h[k].startswith('ms_')})
print('$s', len(a), 'rows; non-timing columns differing:', d)" $OUT/d_${s}_base.csv $OUT/d_${s}_exp.csv >> $R/bitwise.txt 2>&1
done
rm -f $OUT/dump_*.csv $OUT/d_*.csv
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
