#!/bin/bash
# c190 (H100): k_corr skipping the source leaves beyond the cut-off of the chunk's box (queue) and of
# each warp's box (tile runs) — exp — against 442c252 (base): the GPU tests that run k_corr, bitwise
# checks (scenes with and without tracers over 40 steps, leapfrog to t = 1, benches on fresh and kept
# trees), steps alternated, ncu's k_corr per call, memcheck and racecheck on k_corr.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for n in gpu_test_fmm_reg gpu_test_fmm_keep gpu_test_fmm gpu_test_accuracy gpu_test_vortex; do s=$SECONDS; timeout 150 $H/exp/$n > $R/exp_$n.txt 2>&1; echo "== exp $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
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
for k in "wl --sigma 0.002 --levels 5" "rm --sigma 0.0005 --levels 4"; do for v in base exp; do $H/$v/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist rings --precision float --kernel $k --dump $OUT/dump_$v.csv > /dev/null 2>&1; done
 cmp $OUT/dump_base.csv $OUT/dump_exp.csv > /dev/null 2>&1 && echo "$k dump float: identical" >> $R/bitwise.txt || echo "$k dump float: DIFFERENT" >> $R/bitwise.txt; done
echo "bitwise $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep "step time" >> $P; }
for round in 1 2 3; do for v in base exp; do prof "lf60 $v" $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60; done; done
for round in 1 2; do for v in base exp; do prof "lf_t1 $v" $H/$v/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 1 --diag $OUT/t1_$v.csv --diag-every 10; done; done
cp $OUT/t1_exp.csv $OUT/d_exp.csv; cp $OUT/t1_base.csv $OUT/d_base.csv; cmpd "leapfrog to t = 1 (262144 tracers)"
for round in 1 2; do for v in base exp; do for s in leapfrog_big headon oblique single_ring; do prof "$s $v" $H/$v/vortexfmm --headless --scene $s --backend cuda --steps 60; done; done; done
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for v in base exp; do timeout 60 $NCU -k regex:k_corr --metrics gpu__time_duration.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum --print-summary per-kernel $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf_$v.txt 2>&1; done
echo "ncu $SECONDS s" >> $R/time.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for prec in float double; do
 timeout 90 $CS --tool memcheck --kernel-name regex=k_corr $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved 0.05 > $R/memcheck_$prec.txt 2>&1
 timeout 90 $CS --tool racecheck --kernel-name regex=k_corr $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 > $R/racecheck_corr_$prec.txt 2>&1
done
echo "all $SECONDS s" >> $R/time.txt
rm -f $OUT/dump_*.csv $OUT/d_*.csv $OUT/t1_*.csv
cd $OUT && tar czf all.tgz r && rm -rf r
