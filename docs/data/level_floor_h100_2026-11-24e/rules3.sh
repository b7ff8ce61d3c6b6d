#!/bin/bash
# rules2.sh: small N, three rounds: the leaf rule with the floor (default), without it (--min-leaves -1), forced levels
B=.gpu/bin
bench() { timeout 30 $B/vortexfmm-bench --backend cuda --precision float --order 8 --repeat 21 --check 50 --json --quiet "$@" 2>/dev/null | tail -n 1; }
for r in 1 2 3; do for d in uniform rings; do for e in 14 16 18; do n=$((1<<e))
  j=$(bench --n $n --dist $d); echo "{\"round\":$r,\"rule\":\"leaf\",$(echo $j | cut -c2-)"
  echo "{\"round\":$r,\"rule\":\"nofloor\",$(bench --n $n --dist $d --min-leaves -1 | cut -c2-)"
  l=$(echo $j | sed 's/.*"levels":\([0-9]*\).*/\1/')
  for L in $((l-1)) $l $((l+1)); do [ $L -ge 2 ] && echo "{\"round\":$r,\"rule\":\"forced\",$(bench --n $n --dist $d --levels $L | cut -c2-)"; done
done; done; done
