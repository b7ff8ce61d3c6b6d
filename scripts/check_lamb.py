#!/usr/bin/env python3
"""check_lamb.py — numerical check of the Lamb–Helmholtz far field (docs/MATH.md, its Lamb–Helmholtz
section; tests/test_lamb.c checks the same in the code's basis), without any basis convention: for
random elements near the origin, outside their ball,

  (L1)+(L2)  u = ∇Φ + ∇χ × r, with the degree weights of (L2) done by radial integrals:
             a sum of irregular terms f = Σ f_n (degree −(n+1)) has Σ f_n/n = ∫_1^∞ f(λr) dλ and
             Σ f_n/(n(n+1)) = ∫_1^∞ (1 − 1/λ) f(λr) dλ, applied to r·u and r·∇×u:
             Φ(r) = −∫_1^∞ r·u(λr) dλ,   χ(r) = ∫_1^∞ (1 − 1/λ) h(λr) dλ,  h(x) = x·∇×u(x);
  (P2M)      for one element at s: χ = −∫_1^∞ D(λr) dλ with D = α·∇G(r − s) equals the χ above;
  (L4)       the conversion's two projections: r'·(∇χ × t) = t·(r' × ∇χ) and
             r'·∇×(∇χ × t) = r'·∇(t·∇χ).
Derivatives by central differences, integrals by Gauss–Legendre in μ = 1/λ. Prints the relative
errors; exits 1 if one is above its bound: 1e-6, and 1e-4 for the last identity, whose two sides
are third derivatives by nested differences (measured at most 6e-7, 5e-9, 2e-16, 1e-5).
Run: /usr/bin/python3 scripts/check_lamb.py"""
import sys
import numpy as np

rng = np.random.default_rng(7)
K = 6
src = 0.3 * (rng.random((K, 3)) - 0.5)          # elements in a ball of radius ~0.26 about 0
alp = rng.standard_normal((K, 3))                 # strengths, not solenoidal on purpose
MU, WMU = np.polynomial.legendre.leggauss(200)
MU, WMU = 0.5 * (MU + 1.0), 0.5 * WMU             # Gauss–Legendre on (0, 1)


def u(x):
    """Biot–Savart velocity of the elements, singular kernel: Σ ∇G(x − y) × α, G = 1/(4π|x|)."""
    d = x[None, :] - src
    r3 = np.linalg.norm(d, axis=1) ** 3
    return np.sum(np.cross(-d / (4 * np.pi * r3[:, None]), alp), axis=0)


def grad(f, x, h=1e-5):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)])


def curl(F, x, h=1e-5):
    J = np.array([(F(x + h * e) - F(x - h * e)) / (2 * h) for e in np.eye(3)])  # J[j, i] = ∂_j F_i
    return np.array([J[1, 2] - J[2, 1], J[2, 0] - J[0, 2], J[0, 1] - J[1, 0]])


def radial(f, x, w):
    """∫_1^∞ w(λ) f(λx) dλ with λ = 1/μ, dλ = dμ/μ²."""
    return sum(wm * w(1 / m) * f(x / m) / m ** 2 for m, wm in zip(MU, WMU))


def phi(x):
    return -radial(lambda y: x @ u(y), x, lambda lam: 1.0)


def chi(x):
    return radial(lambda y: y @ curl(u, y, 1e-4), x, lambda lam: 1.0 - 1.0 / lam)


def chi_p2m(x):
    D = lambda y: sum(a @ (-(y - s) / (4 * np.pi * np.linalg.norm(y - s) ** 3)) for s, a in zip(src, alp))
    return -radial(D, x, lambda lam: 1.0)


def rel(a, b):
    return float(np.linalg.norm(np.atleast_1d(a - b)) / max(np.linalg.norm(np.atleast_1d(b)), 1e-300))


worst = 0.0
for trial in range(4):
    x = rng.standard_normal(3)
    x *= (1.2 + trial) / np.linalg.norm(x)                      # |x| = 1.2 .. 4.2, outside the elements
    lamb = grad(phi, x, 1e-4) + np.cross(grad(chi, x, 1e-4), x)
    e1 = rel(lamb, u(x))
    e2 = rel(chi(x), chi_p2m(x))
    t = rng.standard_normal(3)
    v = lambda y: np.cross(grad(chi_p2m, y, 1e-4), t)
    gchi = grad(chi_p2m, x, 1e-4)
    e3 = rel(x @ v(x), t @ np.cross(x, gchi))
    tdchi = lambda y: t @ grad(chi_p2m, y, 1e-4)
    e4 = rel(x @ curl(v, x, 1e-3), x @ grad(tdchi, x, 1e-3))
    print("|x| = %.1f: (L1)+(L2) u %.1e, (P2M) chi %.1e, (L4) r'.v %.1e, r'.curl v %.1e" % (np.linalg.norm(x), e1, e2, e3, e4))
    worst = max(worst, e1, e2, e3, e4 / 100)
print("worst (the last identity's error / 100) %.1e" % worst)
sys.exit(0 if worst < 1e-6 else 1)
