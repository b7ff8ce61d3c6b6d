#!/bin/bash
# c167: k_corr with the 27 level-Lc ranges found by the lanes of warp 0 at once (exp) against base
# (a61e6c5): the GPU twin tests that run k_corr (fmm_reg, fmm_keep, accuracy, vortex, fmm); a Gaussian
# bench and leapfrog's steps and 1080p frames alternated; k_corr's own time by ncu; bitwise checks
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for n in gpu_test_fmm_reg gpu_test_fmm_keep gpu_test_accuracy gpu_test_vortex gpu_test_fmm; do s=$SECONDS; timeout 150 $H/exp/$n > $R/exp_$n.txt 2>&1; echo "== exp $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
run() { tag=$1; shift; echo "== $tag" >> $R/bench.txt; timeout 90 env "$@" >> $R/bench.txt 2>&1 || echo "rc=$? $tag" >> $R/bench.txt; }
G="--backend cuda --json --quiet --repeat 7 --n 262144 --dist rings --precision float --order 8 --kernel gauss --sigma 0.02"
for v in base exp base exp; do run "gauss $v" $H/$v/vortexfmm-bench $G; done
for v in base exp base exp; do run "gauss d $v" $H/$v/vortexfmm-bench $G --precision double; done
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do for v in base exp; do
 prof "lf60 $v" $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
done; done
for round in 1 2; do for v in base exp; do
 prof "lf1080 $v" $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --frames 300 --size 1920x1080
done; done
for s in headon oblique single_ring; do for v in base exp; do prof "$s $v" $H/$v/vortexfmm --headless --scene $s --backend cuda --steps 60; done; done
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for v in base exp; do timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf_$v.txt 2>&1; done
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
