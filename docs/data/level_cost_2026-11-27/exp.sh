#!/bin/bash
# exp.sh LIST JOBS LIMIT : each line "tag|args" runs vortexfmm --headless --quiet ARGS --diag $OUT/runs/tag.csv
# with checkpoints into $OUT/ckpt/tag.ckpt; stderr to $OUT/runs/tag.log
list=$1; jobs=$2; limit=$3
mkdir -p $OUT/runs $OUT/ckpt
run1() {
  tag=${1%%|*}; args=${1#*|}
  s=$(date +%s)
  echo "cmd: vortexfmm --headless --quiet $args" > $OUT/runs/$tag.log
  timeout -s INT -k 20 $limit .gpu/bin/vortexfmm --headless --quiet $args --diag $OUT/runs/$tag.csv --checkpoint $OUT/ckpt/$tag.ckpt >> $OUT/runs/$tag.log 2>&1
  rc=$?
  e=$(date +%s)
  echo "long_runs: wall $((e - s)) s, exit $rc" >> $OUT/runs/$tag.log
}
export -f run1; export limit OUT
grep -v '^#' $list | grep . | xargs -d '\n' -P $jobs -I{} bash -c 'run1 "$@"' _ {}
