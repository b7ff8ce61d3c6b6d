#!/usr/bin/env python3
"""scripts/diag_compare.py REF.csv OTHER.csv [OTHER2.csv ...] — two runs of one scene against each
other: the largest differences over their common diagnostics rows (vortexfmm --diag) in I_z (of
|I_z0|), the energy (of E0), the ring centroids' z and radii (of R = 0.3) and max|alpha| (relative).
A benchmark helper: it prints numbers and asserts nothing (docs/BENCHMARKS.md, "physics unchanged")."""
import csv
import sys


def rows(path):
    return list(csv.DictReader(l for l in open(path) if not l.startswith('#')))


def compare(a, b):
    n = min(len(a), len(b))
    f = lambda r, k: float(r[k])
    I0, E0 = abs(f(a[0], 'Iz')), f(a[0], 'energy')
    dI = max(abs(f(a[i], 'Iz') - f(b[i], 'Iz')) for i in range(n)) / I0
    dE = max(abs(f(a[i], 'energy') - f(b[i], 'energy')) for i in range(n)) / E0
    dc = max(max(abs(f(a[i], 'ring%d_z' % r) - f(b[i], 'ring%d_z' % r)), abs(f(a[i], 'ring%d_R' % r) - f(b[i], 'ring%d_R' % r)))
             for i in range(n) for r in (0, 1)) / 0.3
    da = max(abs(f(a[i], 'max_alpha') - f(b[i], 'max_alpha')) / f(a[i], 'max_alpha') for i in range(n))
    return "%d rows to t = %s: |dIz|/|Iz0| %.2e, |dE|/E0 %.2e, ring z and R %.2e R, max|alpha| %.2e" % (
        n, a[n - 1]['time'], dI, dE, dc, da)


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ref = rows(sys.argv[1])
    for other in sys.argv[2:]:
        print("%s: %s" % (other, compare(ref, rows(other))))
