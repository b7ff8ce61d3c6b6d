#!/bin/bash
# The CPU's default (the leaf-size rule with its floor) against the cost model (the compiled CPU
# table) and the forced levels around them, float p = 8 with gradients, this 2-core machine
B=${B:-.gpu/build/vortexfmm-bench}
for e in 14 15 16 17; do for d in uniform rings; do n=$((1 << e))
 A="--backend cpu --precision float --order 8 --json --quiet --repeat 3 --dist $d --n $n"
 L=$($B $A --repeat 1 --level-rule leaf | python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['levels'])")
 for r in leaf cost; do echo "== $e $d $r"; $B $A --level-rule $r; done
 for l in $((L - 1)) $L $((L + 1)); do [ $l -lt 2 ] && continue; echo "== $e $d $l"; $B $A --levels $l; done
done; done
