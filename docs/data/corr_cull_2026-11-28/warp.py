#!/usr/bin/python3
# The warps' boxes in pairs.py's model of leapfrog's first steps (c190-c193): lane-pairs k_corr would evaluate a
# call for the tracers when each warp of 32 sums every source leaf its target leaf reaches (leaf), the
# leaves its chunk of 128 reaches (chunk, counted as 128 lanes), or the leaves its own box reaches (warp);
# the tracers seeded as the scene seeds them (Morton order per ring), all 262 144 of them. Run from anywhere.
import numpy as np
exec(open(__import__('os').path.join(__import__('os').path.dirname(__file__), '..', 'corr_2026-11-28', 'pairs.py')).read().split("for Lt, Ls in")[0])
# the full set of tracers (the warps' boxes depend on their density)
n = 262144; th = rng.uniform(0, 2*np.pi, n); ring = rng.integers(0, 2, n); off = rng.normal(0, 0.05, (n, 2))
r = R + off[:, 0]; T = np.c_[r*np.cos(th), r*np.sin(th), np.where(ring == 0, 0.0, 0.15) + off[:, 1]]
def morton(c):
    c=c.astype(np.uint64); k=np.zeros(len(c),np.uint64)
    for b in range(10):
        for a in range(3): k |= ((c[:,a]>>np.uint64(b))&np.uint64(1))<<np.uint64(3*b+a)
    return k
# Morton order per ring over a cube about the ring
order=[]
for rg in (0,1):
    idx=np.where(ring==rg)[0]; P=T[idx]; plo=P.min(0); ps=(P.max(0)-plo).max()*1.0001
    k=morton(np.floor((P-plo)/ps*1024).astype(np.int64)); order.append(idx[np.argsort(k,kind='stable')])
T=T[np.concatenate(order)]
wl = side/16
kt = np.floor((T-lo)/wl).astype(int); ks=np.floor((S-lo)/wl).astype(int)
from collections import defaultdict
leaves=defaultdict(list)
for i,b in enumerate(map(tuple,kt)): leaves[b].append(i)
cs=Counter(map(tuple,ks)); sk=np.array(list(cs.keys())); sn=np.array(list(cs.values()))
slo=sk*wl+lo; shi=slo+wl
def acc(tl,th,tb):
    gap=np.maximum(0,np.maximum(slo-th,tl-shi)); near=np.abs(sk-np.array(tb)).max(1)<=1
    return ((gap**2).sum(1)<rc*rc)&~near
tot_leaf=tot_chunk=tot_warp=0
for b,ids in leaves.items():
    ids=np.array(ids); tlo=np.array(b)*wl+lo
    a=acc(tlo,tlo+wl,b); nch=0
    for c0 in range(0,len(ids),128):
        ch=ids[c0:c0+128]; P=T[ch]; ac=acc(P.min(0),P.max(0),b)&a
        tot_chunk+=128*sn[ac].sum()
        for w0 in range(0,len(ch),32):
            W=P[w0:w0+32]; aw=acc(W.min(0),W.max(0),b)&ac
            tot_warp+=32*sn[aw].sum(); tot_leaf+=32*sn[a].sum()
print(f"lane-pairs evaluated per call: leaf {tot_leaf/1e6:.1f}M chunk {tot_chunk/1e6:.1f}M warp {tot_warp/1e6:.1f}M; leaves {len(leaves)}")
