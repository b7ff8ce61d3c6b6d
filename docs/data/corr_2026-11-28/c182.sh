#!/bin/bash
# c182 (H100): k_corr skipping groups of 32 staged sources beyond the warp's targets' cut-off, strengths loaded only within it (exp) against fbb6b24 (base):
# the GPU tests that run k_corr; bitwise checks (four scenes' diagnostics over 40 steps, Gaussian
# benches' every target, fresh and kept trees); leapfrog's step alternated (60 steps, and to t = 1);
# k_corr's own time by ncu; sanitizers on the new kernels
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for n in gpu_test_fmm_reg gpu_test_fmm_keep gpu_test_vortex; do s=$SECONDS; timeout 150 $H/exp/$n > $R/exp_$n.txt 2>&1; echo "== exp $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
for s in leapfrog headon oblique single_ring leapfrog_big; do for v in base exp; do
 timeout 60 $H/$v/vortexfmm --headless --quiet --scene $s --backend cuda --steps 40 --diag $OUT/d_${s}_$v.csv --diag-every 5 > /dev/null 2>&1
done
 python3 -c "
import csv,sys
def rd(f): r=[l for l in open(f) if not l.startswith('#')]; x=list(csv.reader(r)); return x[0],x[1:]
h,a=rd(sys.argv[1]); h2,b=rd(sys.argv[2])
d=sorted({h[k] for ra,rb in zip(a,b) for k,(p,q) in enumerate(zip(ra,rb)) if p!=q and not h[k].startswith('ms_')})
print('$s', len(a), len(b), 'rows; non-timing columns differing:', d)" $OUT/d_${s}_base.csv $OUT/d_${s}_exp.csv >> $R/bitwise.txt 2>&1
done
for prec in float double; do for mv in 0 0.05; do for v in base exp; do
 $H/$v/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved $mv --dump $OUT/dump_$v.csv > /dev/null 2>&1
done
 cmp $OUT/dump_base.csv $OUT/dump_exp.csv > /dev/null 2>&1 && echo "gauss dump $prec moved $mv: identical" >> $R/bitwise.txt || echo "gauss dump $prec moved $mv: DIFFERENT" >> $R/bitwise.txt
done; done
for k in wl rm; do for v in base exp; do
 $H/$v/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist uniform --precision float --kernel $k --sigma 0.01 --dump $OUT/dump_$v.csv > /dev/null 2>&1
done
 cmp $OUT/dump_base.csv $OUT/dump_exp.csv > /dev/null 2>&1 && echo "$k dump float: identical" >> $R/bitwise.txt || echo "$k dump float: DIFFERENT" >> $R/bitwise.txt
done
echo "bitwise $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for round in 1 2 3; do for v in base exp; do
 prof "lf60 $v" $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
done; done
for round in 1 2; do for v in base exp; do
 prof "lf_t1 $v" $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --t-end 1
done; done
for v in base exp; do for s in headon oblique leapfrog_big; do prof "$s $v" $H/$v/vortexfmm --headless --scene $s --backend cuda --steps 60; done; done
G="--backend cuda --json --quiet --repeat 7 --n 262144 --dist rings --precision float --order 8 --kernel gauss --sigma 0.02"
for v in base exp base exp; do echo "== gauss $v" >> $R/bench.txt; timeout 60 $H/$v/vortexfmm-bench $G >> $R/bench.txt 2>&1; done
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for v in base exp; do timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf_$v.txt 2>&1; done
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for prec in float double; do
 timeout 90 $CS --tool memcheck $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved 0.05 > $R/memcheck_$prec.txt 2>&1
 timeout 90 $CS --tool racecheck --kernel-name regex:k_corr $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 > $R/racecheck_$prec.txt 2>&1
done
echo "all $SECONDS s" >> $R/time.txt
rm -f $OUT/dump_*.csv $OUT/d_*.csv
cd $OUT && tar czf all.tgz r && rm -rf r
