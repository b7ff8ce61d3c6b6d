#!/usr/bin/env python3
"""The level floor's tables (docs/BENCHMARKS.md): medians per rule and forced level from the JSON
lines of rules.jsonl (call 2, one round, 2^14..2^24) and rules3.jsonl (call 4, three rounds of 21
repeats, 2^14..2^18). Run from this folder: python3 levels_table.py"""
import json, statistics as st
from collections import defaultdict

def table(path):
    g = defaultdict(lambda: defaultdict(list))
    for line in open(path):
        if not line.startswith('{'):
            continue
        d = json.loads(line)
        key = d['rule'] if d['rule'] != 'forced' else 'L%d' % d['levels']
        g[(d['dist'], d['n'])][key].append((d['t_total'], d['levels']))
    print(path)
    for (dist, n), v in sorted(g.items()):
        med = {k: (st.median(x[0] for x in r), r[0][1]) for k, r in v.items()}
        best = min((m, L) for k, (m, L) in med.items() if k.startswith('L'))
        auto = med['leaf']
        extra = ''
        if 'nofloor' in med:
            extra = ', without the floor %.3f (L%d) = %.2f of best' % (med['nofloor'][0], med['nofloor'][1], med['nofloor'][0] / best[0])
        print('  %-7s 2^%d: automatic %.3f ms (L%d) = %.2f of the best forced %.3f (L%d)%s' %
              (dist, n.bit_length() - 1, auto[0], auto[1], auto[0] / best[0], best[0], best[1], extra))

table('rules.jsonl')
table('rules3.jsonl')
