#!/usr/bin/env python3
"""The CPU's automatic level with leaf 64 (the default before 2026-11-24f), 128 and 256 (after)
against the forced levels around them (cpu_levels.jsonl, written by run.py on the 2-core
machine): total ms (level) and the ratio to the best forced. Run from this folder."""
import json
rows = [json.loads(l) for l in open('cpu_levels.jsonl')]
keys = sorted({(r['n'], r['dist']) for r in rows}, key=lambda k: (k[0], k[1]))
print('| N | dist | leaf 64 (old) | leaf 128 | **leaf 256 (new)** | best forced |')
print('|---|---|---|---|---|---|')
for n, d in keys:
    rs = [r for r in rows if r['n'] == n and r['dist'] == d]
    forced = [r for r in rs if r['args'].startswith('--levels')]
    best = min(forced, key=lambda r: r['t_total'])
    def cell(lf):
        r = [r for r in rs if r['args'] == '--leaf %d' % lf][0]
        return '%.1f (%d) %.2f' % (r['t_total'], r['levels'], r['t_total'] / best['t_total'])
    print('| 2^%d | %s | %s | %s | **%s** | %.1f (%d) |' % (n.bit_length() - 1, d, cell(64), cell(128), cell(256),
                                                        best['t_total'], best['levels']))
