#!/usr/bin/env python3
"""docs/VALIDATION.md §18's impulse table: per run, max|I - I0|/|I0|, the largest transverse part,
I_z - I0 at t = 1 / 3 / 10 (over |I0|), elements at t = 10. python3 impulse_table.py (from this folder)"""
import csv, glob, math
for f in sorted(glob.glob('call*/*.csv')):
    if '/step_' in f:
        continue
    rows = [r for r in csv.reader(l for l in open(f) if not l.startswith('#'))]
    d = [dict(zip(rows[0], r)) for r in rows[1:]]
    I0 = [float(d[0][k]) for k in ('Ix', 'Iy', 'Iz')]
    n0 = math.sqrt(sum(x * x for x in I0))
    dev = max(math.sqrt(sum((float(r[k]) - I0[i]) ** 2 for i, k in enumerate(('Ix', 'Iy', 'Iz')))) / n0 for r in d)
    tr = max(math.hypot(float(r['Ix']) - I0[0], float(r['Iy']) - I0[1]) / n0 for r in d)
    at = lambda t: min(d, key=lambda r: abs(float(r['time']) - t))
    iz = ' / '.join('%.2e' % ((float(at(t)['Iz']) - I0[2]) / n0) for t in (1, 3, 10))
    print('%-22s t=%s max %.2e transverse %.2e Iz: %s elements %s' % (f, d[-1]['time'], dev, tr, iz, d[-1]['n_elem']))
