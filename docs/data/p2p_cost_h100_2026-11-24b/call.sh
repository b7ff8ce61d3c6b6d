#!/bin/bash
# session 2026-11-24 call 4: the fast P2P kernel (tests, A/B), the cost rule vs the leaf rule, scene step times
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
t0=$SECONDS
for t in gpu_test_p2p_fast; do timeout 150 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-t0))s"; done
for t in gpu_test_fmm gpu_test_fmm_reg gpu_test_m2l_spec gpu_test_accuracy; do s=$SECONDS
  VX_P2P=fast2 timeout 120 $B/$t > $OUT/r/${t}_fast2.txt 2>&1; echo "== VX_P2P=fast2 $t exit $? wall $((SECONDS-s))s"; done
bench() { timeout 60 $B/vortexfmm-bench --backend cuda --json --quiet "$@" 2>/dev/null | tail -n 1; }
for round in 1 2; do for v in base fast1 fast2 fast4; do for d in uniform rings; do
  echo "{\"variant\":\"$v\",$(VX_P2P=$v bench --n 1048576 --dist $d --precision float --order 8 --repeat 7 --check 300 | cut -c2-)"
  echo "{\"variant\":\"$v\",$(VX_P2P=$v bench --n 1048576 --dist $d --precision double --order 12 --repeat 5 --check 300 | cut -c2-)"
done; done; done > $OUT/r/p2p_ab.jsonl
for v in base fast2; do echo "{\"variant\":\"$v\",$(VX_P2P=$v bench --n 16777216 --precision float --order 8 --repeat 3 --check 100 | cut -c2-)"; done >> $OUT/r/p2p_ab.jsonl
echo "ab done $((SECONDS-t0))s"
for d in uniform rings; do for e in 14 16 18 20 22 24; do n=$((1<<e))
  echo "{\"rule\":\"cost\",$(bench --n $n --dist $d --precision float --order 8 --repeat 3 --check 100 --level-rule cost --cost-file $B/cost_cuda.txt | cut -c2-)"
done; done > $OUT/r/cost.jsonl
echo "cost done $((SECONDS-t0))s"
for r in 1 2; do for v in base fast2; do
  echo "$v leapfrog_big: $(VX_P2P=$v $B/vortexfmm --headless --scene leapfrog_big --backend cuda --steps 100 2>&1 | grep 'step time' | cut -c1-220)"
  echo "$v leapfrog: $(VX_P2P=$v $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 2>&1 | grep 'step time' | cut -c1-220)"
  echo "$v leapfrog float: $(VX_P2P=$v $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 40 --precision float 2>&1 | grep 'step time' | cut -c1-220)"
done; done > $OUT/r/steps.txt
echo "steps done $((SECONDS-t0))s"
cd $OUT && tar czf all.tgz r && rm -rf r && ls -la $OUT
