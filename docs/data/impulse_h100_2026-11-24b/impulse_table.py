#!/usr/bin/env python3
"""The impulse table of docs/VALIDATION.md §15: max|I-I0|/|I0|, I_z - I0 at t = 1, 3, 10, energy drift per
time unit, max|alpha| growth and the final element count of each diagnostics CSV given (leapfrog runs).
Run: python3 impulse_table.py *.csv"""
import sys, csv, math
for f in sys.argv[1:]:
    rows=[r for r in csv.reader(l for l in open(f) if not l.startswith('#'))]
    h=rows[0]; d=[list(map(float,r)) for r in rows[1:] if r]
    i=lambda n: h.index(n)
    I0=[d[0][i(c)] for c in ('Ix','Iy','Iz')]; n0=math.sqrt(sum(x*x for x in I0))
    mx=0; at={}
    for r in d:
        dI=math.sqrt(sum((r[i(c)]-I0[k])**2 for k,c in enumerate(('Ix','Iy','Iz'))))/n0
        mx=max(mx,dI)
        for T in (1,3,10):
            if abs(r[1]-T)<1e-9: at[T]=(r[i('Iz')]-I0[2])/n0
    e0=d[0][i('energy')]; e1=d[-1][i('energy')]; t1=d[-1][1]
    ms=sorted(r[i('ms_step')] for r in d)[len(d)//2]
    print(f"{f:14s} t_end {t1:5.2f} max|dI|/|I0| {mx:.3e}  dIz@1/3/10 {at.get(1,0):+.2e} {at.get(3,0):+.2e} {at.get(10,0):+.2e}  energy/unit {(e1/e0-1)/t1:+.3e} maxa/a0 {max(r[i('max_alpha')] for r in d)/d[0][i('max_alpha')]:.2f} n_elem {int(d[-1][i('n_elem')])}")
