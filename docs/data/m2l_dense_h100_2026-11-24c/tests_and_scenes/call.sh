#!/bin/bash
# session 2026-11-24b call 9: the dense M2L under compute-sanitizer, the GPU tests, every scene to t = 1 (against the t = 10 table's runs)
export VX_ASSETS_DIR=$PWD/assets
B=.gpu/bin
. $B/gpu-env
mkdir -p $OUT/r
CU=/usr/local/cuda-13.0/bin
( for c in "6 float" "8 float" "12 float" "6 double" "8 double" "12 double"; do set -- $c
    echo "== memcheck p$1 $2 (VX_M2L=dense): $(VX_M2L=dense timeout 100 $CU/compute-sanitizer --tool memcheck $B/vortexfmm-bench --backend cuda --n 20000 --order $1 --precision $2 --leaf 64 --repeat 1 --check 10 2>&1 | grep -E 'ERROR SUMMARY|m2l=' | sed 's/.*m2l=/m2l=/' | tr '\n' ' ')"
  done
  for c in "6 float" "8 float" "8 double" "12 double"; do set -- $c
    echo "== racecheck p$1 $2 (VX_M2L=dense): $(VX_M2L=dense timeout 100 $CU/compute-sanitizer --tool racecheck $B/vortexfmm-bench --backend cuda --n 20000 --order $1 --precision $2 --leaf 64 --repeat 1 --check 10 2>&1 | grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|hazard|m2l=' | sed 's/.*m2l=/m2l=/' | head -4 | tr '\n' ' ')"
  done
  echo "== memcheck gpu_test_m2l_dense: $(timeout 150 $CU/compute-sanitizer --tool memcheck $B/gpu_test_m2l_dense 2>&1 | grep -E 'ERROR SUMMARY|passed|failed' | tr '\n' ' ')"
) > $OUT/r/sanitizer.txt 2>&1 &
( for t in gpu_test_m2l_dense gpu_test_m2l_spec gpu_test_fmm gpu_test_accuracy gpu_test_vortex gpu_test_fmm_reg gpu_test_p2p_fast; do s=$SECONDS; timeout 200 $B/$t > $OUT/r/$t.txt 2>&1; echo "== $t exit $? wall $((SECONDS-s))s"; done > $OUT/r/tests.txt ) &
$B/exp.sh $B/lr7.txt 7 300
( sleep 400; pkill -f compute-sanitizer; pkill -f gpu_test_ ) &
wait %1 %2 2>/dev/null
echo "done $SECONDS s" > $OUT/r/time.txt
mv $OUT/runs $OUT/r/; rm -rf $OUT/ckpt; cd $OUT && tar czf all.tgz r && rm -rf r
