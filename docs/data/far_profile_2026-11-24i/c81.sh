#!/bin/bash
# c81: are the remeshed scenes' checkpoints repeatable with one binary (01af103)? leapfrog and headon twice each, with and without tracers
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/ck; cat $B/COMMIT > $R/commit.txt
for sc in leapfrog headon; do for tr in default 0; do
 TA=""; [ $tr = 0 ] && TA="--tracers 0"
 for k in 1 2; do timeout 90 $B/vortexfmm_old --headless --quiet --scene $sc --backend cuda $TA --steps 60 --checkpoint-every 60 --checkpoint $R/ck/${sc}_${tr}_$k.ckpt > /dev/null 2>&1; done
 echo "$sc tracers=$tr: $(cmp $R/ck/${sc}_${tr}_1.ckpt $R/ck/${sc}_${tr}_2.ckpt >/dev/null && echo same || echo "DIFF, $(cmp -l $R/ck/${sc}_${tr}_1.ckpt $R/ck/${sc}_${tr}_2.ckpt | wc -l) bytes, first at $(cmp $R/ck/${sc}_${tr}_1.ckpt $R/ck/${sc}_${tr}_2.ckpt | awk '{print $5}')") of $(stat -c %s $R/ck/${sc}_${tr}_1.ckpt)"
done; done > $R/repeat.txt
rm -rf $R/ck
cd $OUT && tar czf all.tgz r && rm -rf r
