#!/usr/bin/python3
# Pair accounting for `leapfrog`'s corrections (c180-c183): a model of the scene's first steps, not
# the engine's own counts. Sources: the remeshing lattice (h = 0.02, origin on the rear ring's
# centre) where either Gaussian core (a = 0.03) exceeds 1e-3 of its peak; tracers: 20 000 drawn as
# the scene draws them (uniform angle, Gaussian offset of 0.05 across the core), scaled to 262 144.
# For a tracer the pairs within r_c (0.121, the passive cut-off at p = 8), those P2P sums (the 27
# neighbour leaves at level 4), and those k_corr evaluates (every source in a source cell within
# r_c of the target's cell, outside the 27 neighbours), for cells of target level Lt and source
# level Ls (k_corr today: leaf against leaf, (4, 4)).
import numpy as np
from collections import Counter
from scipy.spatial import cKDTree
rng = np.random.default_rng(1)
R, a, h, rc = 0.3, 0.03, 0.02, 0.121
g = np.arange(-0.45, 0.45 + 1e-9, h); gz = np.arange(-0.15, 0.30 + 1e-9, h)
X, Y, Z = np.meshgrid(g, g, gz, indexing='ij'); P = np.c_[X.ravel(), Y.ravel(), Z.ravel()]
w = np.zeros(len(P))
for z0 in (0.0, 0.15):
    w = np.maximum(w, np.exp(-((np.hypot(P[:, 0], P[:, 1]) - R) ** 2 + (P[:, 2] - z0) ** 2) / a ** 2))
S = P[w > 1e-3]
n = 20000; th = rng.uniform(0, 2 * np.pi, n); ring = rng.integers(0, 2, n); off = rng.normal(0, 0.05, (n, 2))
r = R + off[:, 0]; T = np.c_[r * np.cos(th), r * np.sin(th), np.where(ring == 0, 0.0, 0.15) + off[:, 1]]
f = 262144 / n
allp = np.vstack([S, T]); lo = allp.min(0); side = (allp.max(0) - lo).max() * 1.0001
print(f"sources {len(S)} (the scene: 6940 after its first remeshing), cube side {side:.3f}")
within = cKDTree(S).query_ball_point(T, rc)
print(f"tracer pairs within r_c: {sum(map(len, within)) * f / 1e6:.1f} M a call")
wl = side / 16
ks4 = np.floor((S - lo) / wl).astype(int); kt4 = np.floor((T - lo) / wl).astype(int)
c4 = Counter(map(tuple, ks4)); p2p = near = 0
for i, lst in enumerate(within):
    near += (np.abs(ks4[lst] - kt4[i]).max(1) <= 1).sum() if lst else 0
    b = kt4[i]
    p2p += sum(c4.get((b[0] + x, b[1] + y, b[2] + z), 0) for x in (-1, 0, 1) for y in (-1, 0, 1) for z in (-1, 0, 1))
print(f"P2P at level 4: {p2p * f / 1e6:.1f} M pairs, {near * f / 1e6:.1f} M of them within r_c; "
      f"corrections needed: {(sum(map(len, within)) - near) * f / 1e6:.1f} M")
def evaluated(Lt, Ls):
    wt, ws = side / 2 ** Lt, side / 2 ** Ls
    ct = Counter(map(tuple, np.floor((T - lo) / wt).astype(int)))
    cs = Counter(map(tuple, np.floor((S - lo) / ws).astype(int)))
    sk = np.array(list(cs.keys())); sn = np.array(list(cs.values())); tot = 0
    for bt, nt in ct.items():
        tlo = np.array(bt) * wt; thi = tlo + wt; slo = sk * ws; shi = slo + ws
        gap = np.maximum(0, np.maximum(slo - thi, tlo - shi))
        nearby = np.abs(np.floor(slo / wl + 1e-9).astype(int) - np.floor(tlo / wl + 1e-9).astype(int)).max(1) <= 1
        tot += nt * sn[((gap ** 2).sum(1) < rc * rc) & ~nearby].sum()
    return tot * f / 1e6
for Lt, Ls in ((4, 4), (5, 4), (6, 4), (4, 5), (4, 6), (5, 5), (5, 6), (6, 6), (7, 7)):
    print(f"corrections evaluated, target cells level {Lt}, source cells level {Ls}: {evaluated(Lt, Ls):.1f} M a call")
