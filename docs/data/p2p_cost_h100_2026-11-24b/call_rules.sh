#!/bin/bash
# session 2026-11-24 call 3: cost rule vs leaf rule vs forced levels (solo), then leapfrog impulse discrimination runs (MPS)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT
bench() { timeout 60 $B/vortexfmm-bench --backend cuda --precision float --order 8 --repeat 3 --check 100 --json --quiet "$@" 2>/dev/null | tail -n 1; }
for d in uniform rings; do for e in 14 16 18 20 22 24; do n=$((1<<e))
  j=$(bench --n $n --dist $d); echo "{\"rule\":\"leaf\",$(echo $j | cut -c2-)"
  l=$(echo $j | sed 's/.*"levels":\([0-9]*\).*/\1/')
  echo "{\"rule\":\"cost\",$(bench --n $n --dist $d --level-rule 1 --cost-file $B/cost_cuda.txt | cut -c2-)"
  for L in $((l-1)) $((l+1)) $((l+2)); do [ $L -ge 2 ] && echo "{\"rule\":\"forced\",$(bench --n $n --dist $d --levels $L | cut -c2-)"; done
done; done > $OUT/rules.jsonl 2>&1
echo "bench done $(date +%s)"
nvidia-cuda-mps-control -d && echo mps on
$B/exp.sh $B/lf11.txt 7 $((585 - SECONDS))
echo quit | nvidia-cuda-mps-control; sleep 1
rm -rf $OUT/ckpt; cd $OUT && tar czf /tmp/all.tgz . && rm -rf $OUT/* && mv /tmp/all.tgz $OUT/ && ls -la $OUT
