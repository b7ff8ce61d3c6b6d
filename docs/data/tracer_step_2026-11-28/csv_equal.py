#!/usr/bin/env python3
"""csv_equal.py A.csv B.csv NAME: whether two diagnostics CSVs agree in every column but the
wall-clock ones (ms_*), as text: the same bits."""
import sys


def rows(p):
    L = [l.strip().split(',') for l in open(p) if not l.startswith('#')]
    keep = [i for i, c in enumerate(L[0]) if not c.startswith('ms_')]
    return [[r[i] for i in keep] for r in L[1:]], len(keep)


a, n = rows(sys.argv[1])
b, _ = rows(sys.argv[2])
print(sys.argv[3], "rows", len(a), len(b), "columns", n, "equal" if a == b and len(a) > 0 else "DIFFER")
