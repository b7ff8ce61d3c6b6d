#!/bin/bash
# c185 (H100): the review's left-overs (exp): k_corr split into its helpers, one integer warp scan for
# p2p_nbr_scan and the block scan, the kept tree's points kept and measured once when its sources are
# its targets; against fbb6b24 (base): the GPU tests that run them, bitwise checks (scenes with and
# without tracers, Gaussian benches on fresh and kept trees), steps alternated, sanitizers
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for n in gpu_test_fmm_reg gpu_test_fmm_keep gpu_test_p2p_fast gpu_test_fmm gpu_test_vortex; do s=$SECONDS; timeout 150 $H/exp/$n > $R/exp_$n.txt 2>&1; echo "== exp $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
echo "tests $SECONDS s" > $R/time.txt
cmpd() { python3 -c "
import csv,sys
def rd(f): r=[l for l in open(f) if not l.startswith('#')]; x=list(csv.reader(r)); return x[0],x[1:]
h,a=rd(sys.argv[1]); h2,b=rd(sys.argv[2])
d=sorted({h[k] for ra,rb in zip(a,b) for k,(p,q) in enumerate(zip(ra,rb)) if p!=q and not h[k].startswith('ms_')})
print(sys.argv[3], len(a), len(b), 'rows; non-timing columns differing:', d)" $OUT/d_base.csv $OUT/d_exp.csv "$1" >> $R/bitwise.txt 2>&1; }
for s in leapfrog headon oblique single_ring leapfrog_big; do for tr in "" "--tracers 0"; do
 for v in base exp; do timeout 60 $H/$v/vortexfmm --headless --quiet --scene $s --backend cuda --steps 40 $tr --diag $OUT/d_$v.csv --diag-every 5 > /dev/null 2>&1; done
 cmpd "$s $tr"
done; done
for prec in float double; do for mv in 0 0.05; do for v in base exp; do
 $H/$v/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved $mv --dump $OUT/dump_$v.csv > /dev/null 2>&1
done
 cmp $OUT/dump_base.csv $OUT/dump_exp.csv > /dev/null 2>&1 && echo "gauss dump $prec moved $mv: identical" >> $R/bitwise.txt || echo "gauss dump $prec moved $mv: DIFFERENT" >> $R/bitwise.txt
done; done
for k in singular wl; do for v in base exp; do
 $H/$v/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist uniform --precision float --kernel $k --sigma 0.01 --dump $OUT/dump_$v.csv > /dev/null 2>&1
done
 cmp $OUT/dump_base.csv $OUT/dump_exp.csv > /dev/null 2>&1 && echo "$k dump float: identical" >> $R/bitwise.txt || echo "$k dump float: DIFFERENT" >> $R/bitwise.txt
done
echo "bitwise $SECONDS s" >> $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep "step time" >> $P; }
for round in 1 2 3; do for v in base exp; do
 prof "lf60 $v" $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 prof "lfbig60 $v" $H/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60
 prof "sr_notr $v" $H/$v/vortexfmm --headless --scene single_ring --backend cuda --steps 60 --tracers 0
done; done
echo "steps $SECONDS s" >> $R/time.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for prec in float double; do
 timeout 90 $CS --tool memcheck $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved 0.05 > $R/memcheck_$prec.txt 2>&1
 timeout 90 $CS --tool racecheck --kernel-name regex=k_corr $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 > $R/racecheck_corr_$prec.txt 2>&1
 timeout 90 $CS --tool racecheck --kernel-name regex=k_p2p_fast $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 > $R/racecheck_p2p_$prec.txt 2>&1
done
VX_KEEP_MOVE=0.1 timeout 90 $CS --tool memcheck $H/exp/vortexfmm --headless --quiet --scene single_ring --backend cuda --steps 4 --tracers 0 > $R/memcheck_keep_same.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
rm -f $OUT/dump_*.csv $OUT/d_*.csv
cd $OUT && tar czf all.tgz r && rm -rf r
