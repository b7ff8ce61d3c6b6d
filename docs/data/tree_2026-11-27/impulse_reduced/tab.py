import csv, glob, math, os
def rows(f):
    r=[l for l in open(f) if not l.startswith('#')]
    x=list(csv.DictReader(r)); return x
print(f"{'run':14s} {'t_end':>6s} {'max|I-I0|':>10s} {'Iz-I0 @1':>10s} {'@3':>10s} {'@10':>10s} {'E drift/unit':>12s} {'n_end':>6s}")
for f in sorted(glob.glob('docs/data/tree_2026-11-27/impulse_reduced/*.csv')):
    x=rows(f)
    if not x: continue
    I0=[float(x[0][k]) for k in ('Ix','Iy','Iz')]; n0=math.sqrt(sum(v*v for v in I0))
    mx=0; at={}
    for r in x:
        t=float(r['time']); I=[float(r[k]) for k in ('Ix','Iy','Iz')]
        d=math.sqrt(sum((a-b)**2 for a,b in zip(I,I0)))/n0; mx=max(mx,d)
        for T in (1,3,10):
            if T not in at and t>=T-1e-9: at[T]=(I[2]-I0[2])/n0
    t=float(x[-1]['time']); e0=float(x[0]['energy']); e1=float(x[-1]['energy'])
    print(f"{os.path.basename(f)[:-4]:14s} {t:6.2f} {mx:10.3e} {at.get(1,float('nan')):10.3e} {at.get(3,float('nan')):10.3e} {at.get(10,float('nan')):10.3e} {(e1-e0)/e0/t:12.3e} {x[-1]['n_elem']:>6s}")
