#!/usr/bin/env python3
"""Passages of the two rings (sign changes of ring0_z - ring1_z between diagnostics rows) and the
state before the stop, for every CSV named on the command line (VALIDATION §20's thin-core table):
  /usr/bin/python3 passages.py thin_relax/*.csv"""
import csv, math, os, sys


def load(path):
    rows = [r for r in csv.reader(l for l in open(path) if not l.startswith('#'))]
    return rows[0], [list(map(float, r)) for r in rows[1:]]


for path in sys.argv[1:]:
    h, R = load(path)
    i = h.index
    d = [r[i('ring0_z')] - r[i('ring1_z')] for r in R]
    cross = [(R[k - 1][1] + R[k][1]) / 2 for k in range(1, len(R)) if d[k - 1] * d[k] < 0]
    upto = [r for r in R if r[1] <= 3.0]
    I0 = R[0][i('Iz')]
    di = max(abs(r[i('Iz')] - I0) / abs(I0) for r in upto)
    a = [r[i('max_alpha')] for r in R]
    print("%-32s last row t = %.3f, passages %2d (last at %.3f), max|Iz - Iz0|/|Iz0| to t = 3 %.2e, "
          "max|alpha| x%.2f" % (os.path.basename(path), R[-1][1], len(cross), cross[-1] if cross else 0.0, di,
                               max(a) / a[0]))
