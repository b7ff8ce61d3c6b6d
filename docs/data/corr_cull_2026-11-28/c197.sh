#!/bin/bash
# c197 (H100): the far field's stream at the greatest priority by default (exp; VX_STREAM_PRIO=none
# runs it as before) against 442c252 (base): GPU tests, bitwise checks (five scenes with and without
# tracers over 40 steps), steps alternated (two rounds), leapfrog to t = 1, the 1080p frame, benches.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for n in gpu_test_fmm gpu_test_vortex gpu_test_render; do s=$SECONDS; timeout 150 $H/exp/$n > $R/exp_$n.txt 2>&1; echo "== exp $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
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
echo "bitwise $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -E "step time|frame time|fps" >> $P; }
for round in 1 2; do for s in leapfrog leapfrog_big headon oblique single_ring; do
 prof "$s base" $H/base/vortexfmm --headless --scene $s --backend cuda --steps 60
 prof "$s exp" $H/exp/vortexfmm --headless --scene $s --backend cuda --steps 60
 prof "$s exp-none" VX_STREAM_PRIO=none $H/exp/vortexfmm --headless --scene $s --backend cuda --steps 60
done; done
for round in 1 2; do for v in base exp; do prof "lf_t1 $v" $H/$v/vortexfmm --headless --quiet --scene leapfrog --backend cuda --t-end 1; done; done
for round in 1 2; do for v in base exp; do for s in leapfrog_big leapfrog; do prof "1080p $s $v" $H/$v/vortexfmm --headless --scene $s --backend cuda --frames 300 --size 1920x1080; done; done; done
echo "steps $SECONDS s" >> $R/time.txt
B=$R/bench.txt
for round in 1 2; do for v in base exp; do for d in uniform rings; do echo "== $v $d" >> $B; $H/$v/vortexfmm-bench --backend cuda --json --quiet --precision float --order 8 --dist $d --n 1048576 --repeat 7 --check 300 >> $B 2>&1; done; done; done
echo "all $SECONDS s" >> $R/time.txt
rm -f $OUT/d_*.csv
cd $OUT && tar czf all.tgz r && rm -rf r
