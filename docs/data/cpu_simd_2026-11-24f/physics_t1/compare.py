#!/usr/bin/env python3
"""leapfrog on the CPU over t <= 1 (float, tracers 0, this 2-core machine): the binaries before the
vectorized pair loops (8aca1c4, leaf 64, level 3) against after (leaf 256, level 2-3): largest
differences over the rows. Run from this folder."""
import csv
def rd(f):
    return list(csv.DictReader(l for l in open(f) if not l.startswith('#')))
a, b = rd('lf_before.csv'), rd('lf_after.csv')
n = min(len(a), len(b))
I0, E0 = abs(float(a[0]['Iz'])), float(a[0]['energy'])
dI = max(abs(float(a[i]['Iz']) - float(b[i]['Iz'])) for i in range(n)) / I0
dE = max(abs(float(a[i]['energy']) - float(b[i]['energy'])) for i in range(n)) / E0
dc = max(max(abs(float(a[i]['ring%d_z' % r]) - float(b[i]['ring%d_z' % r])),
             abs(float(a[i]['ring%d_R' % r]) - float(b[i]['ring%d_R' % r]))) for i in range(n) for r in (0, 1)) / 0.3
da = max(abs(float(a[i]['max_alpha']) - float(b[i]['max_alpha'])) / float(a[i]['max_alpha']) for i in range(n))
print("%d rows to t = %s: |dIz|/|Iz0| %.2e, |dE|/E0 %.2e, ring z and R %.2e R, max|alpha| %.2e" %
      (n, a[n - 1]['time'], dI, dE, dc, da))
