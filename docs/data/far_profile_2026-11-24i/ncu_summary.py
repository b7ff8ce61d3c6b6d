# ncu_summary.py FILE... : sums ncu --print-summary per-kernel reports by kernel name (ms, invocations), largest first
import re,sys
for fn in sys.argv[1:]:
    rows=[];cur=None
    for line in open(fn):
        if 'Invocations' in line:
            name=line.strip().split('(')[0]; inv=int(line.split('Invocations')[1].split()[0]); grid=re.findall(r'\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)',line); cur=[name,inv]
        elif 'gpu__time_duration.sum' in line and cur:
            p=line.split(); f={'ns':1e-6,'us':1e-3,'ms':1,'nsecond':1e-6,'usecond':1e-3,'msecond':1}[p[1]]
            a=float(p[-1].replace(',',''))*f; rows.append((cur[0],cur[1],a*cur[1])); cur=None
    agg={}
    for n,i,t in rows:
        x=agg.setdefault(n,[0,0.0]); x[0]+=i; x[1]+=t
    tot=sum(v[1] for v in agg.values())
    print(fn,'total ms',round(tot,2))
    for k,v in sorted(agg.items(),key=lambda kv:-kv[1][1])[:25]:
        print(f"  {v[1]:8.3f} ms {v[0]:5d}x  {k}")
