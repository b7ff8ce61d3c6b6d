#!/bin/bash
# c183 (H100): k_corr with blocks of 1, 2 or 4 warps (VX_CORR_WARPS; the chunk's targets split over
# blocks of 32 W, the tile VX_P2P_CAP W/4): bitwise against fbb6b24 (base), the twins at W = 1 and 2,
# leapfrog's step alternated (60 steps, to t = 1), ncu's k_corr time per W, sanitizers at W = 1
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for w in 1 2; do for n in gpu_test_fmm_reg gpu_test_fmm_keep; do s=$SECONDS; VX_CORR_WARPS=$w timeout 150 $H/exp/$n > $R/exp_w${w}_$n.txt 2>&1; echo "== W=$w $n exit $? wall $((SECONDS-s))s"; done; done > $R/tests.txt
for w in 1 2 4; do
for s in leapfrog headon oblique leapfrog_big; do
 timeout 60 $H/base/vortexfmm --headless --quiet --scene $s --backend cuda --steps 40 --diag $OUT/d_${s}_base.csv --diag-every 5 > /dev/null 2>&1
 VX_CORR_WARPS=$w timeout 60 $H/exp/vortexfmm --headless --quiet --scene $s --backend cuda --steps 40 --diag $OUT/d_${s}_exp.csv --diag-every 5 > /dev/null 2>&1
 python3 -c "
import csv,sys
def rd(f): r=[l for l in open(f) if not l.startswith('#')]; x=list(csv.reader(r)); return x[0],x[1:]
h,a=rd(sys.argv[1]); h2,b=rd(sys.argv[2])
d=sorted({h[k] for ra,rb in zip(a,b) for k,(p,q) in enumerate(zip(ra,rb)) if p!=q and not h[k].startswith('ms_')})
print('W=$w $s', len(a), len(b), 'rows; non-timing columns differing:', d)" $OUT/d_${s}_base.csv $OUT/d_${s}_exp.csv >> $R/bitwise.txt 2>&1
done
for prec in float double; do for mv in 0 0.05; do
 $H/base/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved $mv --dump $OUT/dump_base.csv > /dev/null 2>&1
 VX_CORR_WARPS=$w $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved $mv --dump $OUT/dump_exp.csv > /dev/null 2>&1
 cmp $OUT/dump_base.csv $OUT/dump_exp.csv > /dev/null 2>&1 && echo "W=$w gauss dump $prec moved $mv: identical" >> $R/bitwise.txt || echo "W=$w gauss dump $prec moved $mv: DIFFERENT" >> $R/bitwise.txt
done; done
done
echo "bitwise $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | grep "step time" >> $P; }
for round in 1 2 3; do
 prof "lf60 base" $H/base/vortexfmm --headless --scene leapfrog --backend cuda --steps 60
 for w in 1 2 4; do prof "lf60 W=$w" VX_CORR_WARPS=$w $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --steps 60; done
done
for round in 1 2; do
 prof "lf_t1 base" $H/base/vortexfmm --headless --scene leapfrog --backend cuda --t-end 1
 for w in 1 2; do prof "lf_t1 W=$w" VX_CORR_WARPS=$w $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --t-end 1; done
done
for s in headon oblique leapfrog_big; do prof "$s base" $H/base/vortexfmm --headless --scene $s --backend cuda --steps 60; for w in 1 2; do prof "$s W=$w" VX_CORR_WARPS=$w $H/exp/vortexfmm --headless --scene $s --backend cuda --steps 60; done; done
G="--backend cuda --json --quiet --repeat 7 --n 262144 --dist rings --precision float --order 8 --kernel gauss --sigma 0.02"
for v in base 1 2 base 1 2; do echo "== gauss $v" >> $R/bench.txt; if [ $v = base ]; then timeout 60 $H/base/vortexfmm-bench $G >> $R/bench.txt 2>&1; else VX_CORR_WARPS=$v timeout 60 $H/exp/vortexfmm-bench $G >> $R/bench.txt 2>&1; fi; done
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $H/base/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf_base.txt 2>&1
for w in 1 2; do VX_CORR_WARPS=$w timeout 120 $NCU --metrics gpu__time_duration.sum --print-summary per-kernel $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf_w$w.txt 2>&1; done
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats"
VX_CORR_WARPS=1 timeout 100 $NCU $S -k regex:k_corr -s 2 -c 2 $H/exp/vortexfmm --headless --scene leapfrog --backend cuda --steps 2 > $R/ncu_sections_w1.txt 2>&1
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for prec in float double; do
 VX_CORR_WARPS=1 timeout 90 $CS --tool memcheck $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 --moved 0.05 > $R/memcheck_w1_$prec.txt 2>&1
 VX_CORR_WARPS=1 timeout 90 $CS --tool racecheck --kernel-name regex=k_corr $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision $prec --kernel gauss --sigma 0.02 > $R/racecheck_w1_$prec.txt 2>&1
done
echo "all $SECONDS s" >> $R/time.txt
rm -f $OUT/dump_*.csv $OUT/d_*.csv
cd $OUT && tar czf all.tgz r && rm -rf r
