#!/usr/bin/env python3
"""Issue 12's level table from a levels.txt of c173.sh: per N and distribution, the median over the
rounds of the default rule (auto), the leaf-size rule and each forced level; ratio = default / best."""
import json, sys, statistics
runs = {}
tag = None
for line in open(sys.argv[1]):
    if line.startswith('=='):
        tag = line.split()[1:]; continue
    if not line.startswith('{'): continue
    j = json.loads(line)
    key = (int(tag[0]), tag[1]); kind = tag[2]
    runs.setdefault(key, {}).setdefault(kind, []).append((j['t_total'], j['levels']))
print('| N | dist | default rule: ms (level) | leaf-size rule: ms (level) | best forced: ms (level) | default / best | leaf / best |')
print('|---|---|---|---|---|---|---|')
worst = 0
for (e, d), k in sorted(runs.items()):
    med = {t: (statistics.median(x[0] for x in v), v[0][1]) for t, v in k.items()}
    forced = {t: m for t, m in med.items() if t not in ('auto', 'leaf')}
    if not forced: continue
    bt = min(forced, key=lambda t: forced[t][0]); b = forced[bt]
    a, l = med['auto'], med['leaf']
    worst = max(worst, a[0] / b[0])
    print(f'| 2^{e} | {d} | {a[0]:.3f} ({a[1]}) | {l[0]:.3f} ({l[1]}) | {b[0]:.3f} ({b[1]}) | {a[0]/b[0]:.2f} | {l[0]/b[0]:.2f} |')
print(f'\nworst default / best: {worst:.3f}')
