#!/bin/bash
# c192 (H100): c191's warp boxes on the velocity-only chunks alone (exp; the gradient chunks sum
# their whole tiles as base does), against 442c252 (base): bitwise checks, steps alternated, ncu's
# k_corr; and a counting build (cnt: -DVX_CORR_COUNT, both kinds culled) that says how many of the
# staged sources each kind's warps took (corr_count lines). No bench binaries (the call's size limit).
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
cmpd() { python3 -c "
import csv,sys
def rd(f): r=[l for l in open(f) if not l.startswith('#')]; x=list(csv.reader(r)); return x[0],x[1:]
h,a=rd(sys.argv[1]); h2,b=rd(sys.argv[2])
d=sorted({h[k] for ra,rb in zip(a,b) for k,(p,q) in enumerate(zip(ra,rb)) if p!=q and not h[k].startswith('ms_')})
print(sys.argv[3], len(a), len(b), 'rows; non-timing columns differing:', d)" $OUT/d_base.csv $OUT/d_exp.csv "$1" >> $R/bitwise.txt 2>&1; }
for s in leapfrog headon oblique leapfrog_big; do
 for v in base exp; do timeout 60 $H/$v/vortexfmm --headless --quiet --scene $s --backend cuda --steps 40 --diag $OUT/d_$v.csv --diag-every 5 > /dev/null 2>&1; done
 cmpd "$s"
done
echo "bitwise $SECONDS s" > $R/time.txt
[ -x $H/cnt/vortexfmm ] && for s in leapfrog leapfrog_big headon; do echo "== $s" >> $R/counts.txt; VX_CORR_COUNT=1 timeout 60 $H/cnt/vortexfmm --headless --quiet --scene $s --backend cuda --steps 2 2>&1 | grep corr_count >> $R/counts.txt; done
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep "step time" >> $P; }
for round in 1 2 3; do for v in base exp; do prof "lf60 $v" $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60; done; done
for round in 1 2; do for v in base exp; do prof "lf_t1 $v" $H/$v/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 1; done; done
for round in 1 2; do for v in base exp; do for s in leapfrog_big headon; do prof "$s $v" $H/$v/vortexfmm --headless --scene $s --backend cuda --steps 60; done; done; done
echo "steps $SECONDS s" >> $R/time.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for v in base exp; do timeout 60 $NCU -k regex:k_corr --metrics gpu__time_duration.sum,smsp__inst_executed.sum --print-summary per-kernel $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 3 > $R/ncu_lf_$v.txt 2>&1; done
echo "all $SECONDS s" >> $R/time.txt
rm -f $OUT/dump_*.csv $OUT/d_*.csv
cd $OUT && tar czf all.tgz r && rm -rf r
