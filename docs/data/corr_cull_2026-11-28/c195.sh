#!/bin/bash
# c195 (H100): the near-field and L2P kernels read the chunk count through a pointer of its own
# (exp: k_l2p, k_p2p, k_p2p_fast, k_corr; was chunk_off[nleaf] over an offset array) against
# 442c252 (base): the GPU tests that run them, bitwise checks (scenes with and without tracers,
# Gaussian and singular benches on fresh and kept trees), memcheck on a scene.
export VX_ASSETS_DIR=$PWD/assets
H=$PWD/.gpu/h100
. $H/gpu-env $H/lib
R=$OUT/r; mkdir -p $R; cat $H/base/COMMIT $H/exp/COMMIT > $R/commit.txt; nvidia-smi -L > $R/device.txt
for n in gpu_test_fmm gpu_test_fmm_reg gpu_test_fmm_keep gpu_test_p2p_fast gpu_test_leaf_ops gpu_test_accuracy gpu_test_vortex; do s=$SECONDS; timeout 150 $H/exp/$n > $R/exp_$n.txt 2>&1; echo "== exp $n exit $? wall $((SECONDS-s))s"; done > $R/tests.txt
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
for k in "gauss --sigma 0.02" "singular"; do for prec in float double; do for mv in 0 0.05; do for v in base exp; do
 $H/$v/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 65536 --dist rings --precision $prec --kernel $k --moved $mv --dump $OUT/dump_$v.csv > /dev/null 2>&1
done
 cmp $OUT/dump_base.csv $OUT/dump_exp.csv > /dev/null 2>&1 && echo "$k dump $prec moved $mv: identical" >> $R/bitwise.txt || echo "$k dump $prec moved $mv: DIFFERENT" >> $R/bitwise.txt
done; done; done
echo "bitwise $SECONDS s" > $R/time.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep "step time" >> $P; }
for round in 1 2; do for v in base exp; do prof "lf60 $v" $H/$v/vortexfmm --headless --scene leapfrog --backend cuda --steps 60; prof "lfbig60 $v" $H/$v/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 60; done; done
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 120 $CS --tool memcheck $H/exp/vortexfmm --headless --quiet --scene leapfrog --backend cuda --steps 2 --tracers 20000 > $R/memcheck_leapfrog.txt 2>&1
timeout 90 $CS --tool memcheck $H/exp/vortexfmm-bench --backend cuda --quiet --repeat 1 --n 20000 --dist rings --precision float --kernel singular > $R/memcheck_singular.txt 2>&1
echo "all $SECONDS s" >> $R/time.txt
rm -f $OUT/dump_*.csv $OUT/d_*.csv
cd $OUT && tar czf all.tgz r && rm -rf r
