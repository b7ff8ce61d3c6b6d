#!/usr/bin/env python3
"""scripts/diag_compare.py REF.csv OTHER.csv [OTHER2.csv ...] — two runs of one scene against each
other: the largest differences over their common diagnostics rows (vortexfmm --diag) in I_z (of
|I_z0|), the energy (of E0), the ring centroids' z and radii (of R = 0.3) and max|alpha| (relative);
then, each row against REF's same row, any component of I (of that row's |I|), of W (of its
max|alpha|), any ring centroid coordinate or radius (of R) and the element count (relative).
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
    rings = [k for k in a[0] if k.startswith('ring') and k in b[0]]
    norm = lambda r, ks: sum(f(r, k) ** 2 for k in ks) ** 0.5
    dIv = max(max(abs(f(a[i], k) - f(b[i], k)) for k in ('Ix', 'Iy', 'Iz')) / norm(a[i], ('Ix', 'Iy', 'Iz')) for i in range(n))
    dW = max(max(abs(f(a[i], k) - f(b[i], k)) for k in ('Wx', 'Wy', 'Wz')) / f(a[i], 'max_alpha') for i in range(n))
    dr = max(abs(f(a[i], k) - f(b[i], k)) for i in range(n) for k in rings) / 0.3
    dn = max(abs(f(a[i], 'n_elem') - f(b[i], 'n_elem')) / f(a[i], 'n_elem') for i in range(n))
    return ("%d rows to t = %s: |dIz|/|Iz0| %.2e, |dE|/E0 %.2e, ring z and R %.2e R, max|alpha| %.2e; "
            "row by row: I %.2e of |I|, W %.2e of max|alpha|, rings %.2e R, elements %.2e") % (
        n, a[n - 1]['time'], dI, dE, dc, da, dIv, dW, dr, dn)


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ref = rows(sys.argv[1])
    for other in sys.argv[2:]:
        print("%s: %s" % (other, compare(ref, rows(other))))
