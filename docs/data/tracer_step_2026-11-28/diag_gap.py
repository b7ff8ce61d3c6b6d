#!/usr/bin/env python3
"""diag_gap.py REF.csv OTHER.csv...: each OTHER's largest departure from REF over the rows both have,
per diagnostic: the impulse I relative to |I|, W and max|alpha| relative to max|alpha|, the energy
relative to itself, the ring centroids and radii relative to R = 0.3."""
import math, sys


def load(p):
    L = [l.strip().split(',') for l in open(p) if not l.startswith('#')]
    h = L[0]
    return {int(r[0]): dict(zip(h, map(float, r))) for r in L[1:]}


ref = load(sys.argv[1])
for o in sys.argv[2:]:
    d = load(o)
    g = {}
    for k in sorted(set(ref) & set(d)):
        a, b = ref[k], d[k]
        I = math.sqrt(a['Ix'] ** 2 + a['Iy'] ** 2 + a['Iz'] ** 2)
        A = a['max_alpha']
        def up(name, v):
            g[name] = max(g.get(name, 0.0), v)
        up('I', max(abs(a[c] - b[c]) for c in ('Ix', 'Iy', 'Iz')) / I)
        up('W', max(abs(a[c] - b[c]) for c in ('Wx', 'Wy', 'Wz')) / A)
        up('max_alpha', abs(a['max_alpha'] - b['max_alpha']) / A)
        up('energy', abs(a['energy'] - b['energy']) / abs(a['energy']))
        up('rings', max(abs(a[c] - b[c]) / 0.3 for c in a if c.startswith('ring') and c in b))
        up('n_elem', abs(a['n_elem'] - b['n_elem']) / a['n_elem'])
    print("%-24s rows %d  " % (o.split('/')[-1], len(set(ref) & set(d))) + "  ".join("%s %.2e" % kv for kv in g.items()))
