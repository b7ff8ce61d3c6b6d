#!/bin/bash
# rules.sh: the leaf rule against forced levels l-1, l, l+1, float p = 8, 2^14..2^24 uniform and rings (JSON lines)
B=.gpu/bin
bench() { timeout 60 $B/vortexfmm-bench --backend cuda --precision float --order 8 --repeat 5 --check 100 --json --quiet "$@" 2>/dev/null | tail -n 1; }
for d in uniform rings; do for e in 14 16 18 20 22 24; do n=$((1<<e))
  j=$(bench --n $n --dist $d); echo "{\"rule\":\"leaf\",$(echo $j | cut -c2-)"
  l=$(echo $j | sed 's/.*"levels":\([0-9]*\).*/\1/')
  for L in $((l-1)) $l $((l+1)); do [ $L -ge 2 ] && echo "{\"rule\":\"forced\",$(bench --n $n --dist $d --levels $L | cut -c2-)"; done
done; done
