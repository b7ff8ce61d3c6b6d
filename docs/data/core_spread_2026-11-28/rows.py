import csv,sys
every=float(sys.argv[1])
for f in sys.argv[2:]:
    rows=[l for l in open(f) if not l.startswith('#')]
    r=list(csv.DictReader(rows))
    if not r: print(f,"empty"); continue
    I0=[float(r[0][k]) for k in ('Ix','Iy','Iz')]; n0=sum(x*x for x in I0)**.5
    E0=float(r[0]['energy']) if r[0].get('energy') not in (None,'') else None
    a0=float(r[0]['max_alpha'])
    print(f)
    nxt=0
    for x in r:
        t=float(x['time'])
        if t+1e-9<nxt and x is not r[-1]: continue
        nxt=t+every
        I=[float(x[k]) for k in ('Ix','Iy','Iz')]
        dI=sum((a-b)**2 for a,b in zip(I,I0))**.5/n0
        E=x.get('energy'); E=float(E)/E0 if E not in (None,'') and E0 else float('nan')
        print(" t=%-7.3f n=%-7s E/E0=%.4f dI=%.3e Iz/I0=%.4f amax=%.3f lev=%s ms=%s"%(t,x['n_elem'],E,dI,float(x['Iz'])/I0[2] if I0[2] else 0,float(x['max_alpha'])/a0,x.get('levels'),x.get('ms_step')))
