#!/usr/bin/python3
"""scripts/validation.py — runs the physical validation of the vortex module through the
`vortexfmm --headless` command line and makes the numbers and plots of docs/VALIDATION.md.

  /usr/bin/python3 scripts/validation.py [--exe build/vortexfmm] [--out docs] [--quick] [--only PARTS]
  /usr/bin/python3 scripts/validation.py --only bkm --bkm docs/inputs/leapfrog_big_filaments_gpu.csv \
      --bkm-png validation_bkm_filaments.png
  /usr/bin/python3 scripts/validation.py --only bkm --bkm docs/inputs/leapfrog_big_resolved_gpu.csv \
      --bkm-core 0.005 --bkm-sigma 0.004
  /usr/bin/python3 scripts/validation.py --big docs/inputs/leapfrog_big_resolved_gpu.csv --big-only

Needs python3-matplotlib and python3-scipy (scripts/setup installs them; use the Debian
/usr/bin/python3). CPU only; the parts (--only, comma-separated; default all but saffman_fine):
  ring      ring speed vs resolution              docs/validation_ring.png
  leapfrog  two leapfrogging thin rings, and the reduced model for them
                                                  docs/validation_leapfrog.png, validation_bkm_thin.png
  impulse   drift of linear impulse and total vorticity, both schemes   docs/validation_impulse.png
  bkm       the reduced (Borisov–Kilin–Mamaev) model's self-checks; with --bkm CSV (a two-ring
            leapfrog run; --bkm-core, --bkm-sigma, --bkm-nu give its cores) the run against it
                                                  docs/validation_bkm.png (--bkm-png NAME)
  saffman   one remeshed ring, inviscid and viscous, against Saffman's U(t)   docs/validation_saffman.png
  saffman_fine  the same ring at a finer σ on a finer lattice, with the conservative correction
            (a table only; about 12 minutes a run on one core, three runs)
  big       with --big CSV (a GPU run of a two-ring leapfrog, e.g. `vortexfmm --headless --scene
            leapfrog_big --backend cuda --steps 3500 --diag CSV --diag-every 20`): its rings'
            centroids and radii, max|α| and impulse drift   docs/validation_leapfrog_big.png
ring, leapfrog and impulse take about 3 minutes on 2 cores (--quick: the ring table without its
finest row), saffman about 8 more; bkm and big run nothing. The tables (markdown) go to stdout; the
runs' CSVs to a temporary directory (saffman, saffman_fine: --saffman-dir DIR keeps and reuses them).
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402
from scipy.special import ellipe, ellipk  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(exe, scene_text, args, tmp, tag, stop_ok=False):
    """Run one scene on the CPU backend and return its diagnostics rows. With stop_ok, a run that the
    blow-up rule stops (exit 3) returns the rows written until then instead of failing."""
    scene = os.path.join(tmp, tag + ".scene")
    diag = os.path.join(tmp, tag + ".csv")
    with open(scene, "w") as f:
        f.write(scene_text)
    cmd = [exe, "--headless", "--scene", scene, "--diag", diag, "--quiet", "--backend", "cpu"] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 and not (stop_ok and r.returncode == 3 and os.path.exists(diag)):
        sys.exit("validation.py: %s failed (exit %d):\n%s" % (" ".join(cmd), r.returncode, r.stderr))
    with open(diag) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return [{k: float(v) for k, v in row.items()} for row in rows]


def ring_scene(core, layers, n_around, sigma):
    return (
        "kernel = gauss\nsigma = %.10g\nintegrator = rk4\nstretching = classical\norder = 10\n"
        "[ring]\ncirculation = 1\nradius = 1\ncore = %.10g\nprofile = gauss\ncore_extent = 2\n"
        "n_around = %d\nlayers = %d\nlayer_points = 6\ncentre = 0 0 0\naxis = 0 0 1\ntracers = 0\n"
        % (sigma, core, n_around, layers)
    )


def c_gauss():
    """C_q = -1 + ∫ (q_G - q_RM)/ρ dρ, the thin-filament constant of the Gaussian kernel."""
    m, top = 200000, 60.0
    h, s = top / m, 0.0
    for i in range(m):
        r = (i + 0.5) * h
        qg = math.erf(r / math.sqrt(2)) - math.sqrt(2 / math.pi) * r * math.exp(-0.5 * r * r)
        qr = r ** 3 / (r * r + 1) ** 1.5
        s += (qg - qr) / r * h
    return -1.0 + s


def ring_table(exe, tmp, quick):
    print("\n### Ring speed vs resolution (R = 1, Γ = 1, RK4 dt = 0.01, 10 steps)\n")
    print("| model | a | layers | elements | σ | U measured | U theory | error |")
    print("|---|---|---|---|---|---|---|---|")
    res = []
    layers_list = [1, 2] if quick else [1, 2, 3]
    for a in (0.1, 0.05):
        for L in layers_list:
            h = 2 * a / (L + 0.5)
            n_around = int(2 * 2 * math.pi / h)
            rows = run(exe, ring_scene(a, L, n_around, h), ["--steps", "10", "--dt", "0.01", "--diag-every", "10",
                                                            "--energy-max", "0"], tmp, "ring_%g_%d" % (a, L))
            U = (rows[-1]["ring0_z"] - rows[0]["ring0_z"]) / (rows[-1]["time"] - rows[0]["time"])
            aeff = math.sqrt(a * a + 2 * h * h)
            Us = (math.log(8 / aeff) - 0.558) / (4 * math.pi)
            n = n_around * (1 + 3 * L * (L + 1))
            err = U / Us - 1
            res.append(("resolved", a, L, n, err))
            print("| resolved Gaussian core, Saffman a_eff=√(a²+2σ²) | %g | %d | %d | %.4f | %.5f | %.5f | %+.2f%% |"
                  % (a, L, n, h, U, Us, 100 * err))
    C = c_gauss()
    for sigma in (0.1, 0.05, 0.025):
        n_around = int(8 * 2 * math.pi / sigma)
        rows = run(exe, ring_scene(0.05, 0, n_around, sigma), ["--steps", "10", "--dt", "0.01", "--diag-every", "10",
                                                              "--direct", "--energy-max", "0"], tmp, "thin_%g" % sigma)
        U = (rows[-1]["ring0_z"] - rows[0]["ring0_z"]) / (rows[-1]["time"] - rows[0]["time"])
        Uf = (math.log(8 / sigma) + C) / (4 * math.pi)
        Usaff = (math.log(8 / (math.sqrt(2) * sigma)) - 0.558) / (4 * math.pi)
        print("| thin ring, filament theory C_q=%.4f (Saffman with a=√2σ: %.5f) | – | 0 | %d | %g | %.5f | %.5f | %+.2f%% |"
              % (C, Usaff, n_around, sigma, U, Uf, 100 * (U / Uf - 1)))
    return res


LEAP = (
    "kernel = gauss\nsigma = 0.04\nintegrator = rk4\norder = 12\nleaf_size = 16\n"
    "[ring]\nradius = 0.3\nn_around = 96\ncentre = 0.5 0.5 0.425\naxis = 0 0 1\ntracers = 0\n"
    "[ring]\nradius = 0.3\nn_around = 96\ncentre = 0.5 0.5 0.575\naxis = 0 0 1\ntracers = 0\n%s"
)
WAVY = "perturb_amp = 0.03\nperturb_mode = 3\n"


def leapfrog(exe, tmp, out):
    common = ["--steps", "400", "--dt", "0.005", "--diag-every", "2", "--energy-max", "100000"]
    d = run(exe, LEAP % "", common + ["--direct", "--stretching", "classical"], tmp, "leap_direct")
    f = run(exe, LEAP % "", common + ["--stretching", "classical"], tmp, "leap_fmm")
    t = [r["time"] for r in d]
    fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for k, c in ((0, "C0"), (1, "C1")):
        ax[0].plot(t, [r["ring%d_z" % k] for r in d], c, label="ring %d (direct)" % k)
        ax[0].plot(t, [r["ring%d_z" % k] for r in f], c + "--", label="ring %d (FMM p=12)" % k)
        ax[1].plot(t, [r["ring%d_R" % k] for r in d], c)
        ax[1].plot(t, [r["ring%d_R" % k] for r in f], c + "--")
    ax[0].set_ylabel("centroid z")
    ax[1].set_ylabel("radius")
    ax[1].set_xlabel("time")
    ax[0].legend(fontsize=8)
    ax[0].set_title("Leapfrogging rings: R=0.3, Γ=1, 2x96 elements, Gaussian σ=0.04, RK4 dt=0.005")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validation_leapfrog.png"), dpi=110)
    swaps = sum(1 for a, b in zip(d, d[1:]) if (a["ring1_z"] - a["ring0_z"]) * (b["ring1_z"] - b["ring0_z"]) < 0)
    dev = max(max(abs(a["ring%d_%s" % (k, q)] - b["ring%d_%s" % (k, q)]) for k in (0, 1) for q in "zR")
              for a, b in zip(d, f))
    print("\n### Leapfrog (t = 0..%g)\n" % t[-1])
    print("- exchanges of place: %d (direct)" % swaps)
    print("- radius range ring 0: [%.4f, %.4f]" % (min(r["ring0_R"] for r in d), max(r["ring0_R"] for r in d)))
    print("- max |FMM - direct| of centroids z and radii over the run: %.2e (= %.2e R)" % (dev, dev / 0.3))
    e0 = d[0]["energy"]
    print("- energy drift (direct): %.2e relative" % max(abs(r["energy"] / e0 - 1) for r in d))
    bkm_compare(d, bkm_variants(0.0, 0.04), 0.0, out, "validation_bkm_thin.png",
                "Thin rings (σ = 0.04, 2×96, direct; solid) and the reduced model")


def impulse(exe, tmp, out):
    common = ["--steps", "240", "--dt", "0.005", "--diag-every", "2", "--energy-max", "0"]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    print("\n### Invariants, wavy leapfrog (mode-3 perturbation 3%), t = 0..1.2\n")
    print("| scheme | solver | max ΔI/|I| | max |ΔW| (Σ|α| ≈ 3.8) |")
    print("|---|---|---|---|")
    for scheme, c in (("classical", "C0"), ("transpose", "C1")):
        for solver, ls in (("direct", "-"), ("fmm", "--")):
            args = common + ["--stretching", scheme] + (["--direct"] if solver == "direct" else [])
            d = run(exe, LEAP % WAVY, args, tmp, "inv_%s_%s" % (scheme, solver), stop_ok=True)
            t = [r["time"] for r in d]
            I0 = math.sqrt(sum(d[0]["I" + q] ** 2 for q in "xyz"))
            dI = [math.sqrt(sum((r["I" + q] - d[0]["I" + q]) ** 2 for q in "xyz")) / I0 for r in d]
            dW = [math.sqrt(sum((r["W" + q] - d[0]["W" + q]) ** 2 for q in "xyz")) for r in d]
            ax[0].semilogy(t, [max(x, 1e-18) for x in dI], c + ls, label="%s, %s" % (scheme, solver))
            ax[1].semilogy(t, [max(x, 1e-18) for x in dW], c + ls, label="%s, %s" % (scheme, solver))
            stop = "" if t[-1] >= 1.2 - 1e-9 else " (stopped by the blow-up rule at t = %g)" % t[-1]
            print("| %s | %s%s | %.2e | %.2e |" % (scheme, solver, stop, max(dI), max(dW)))
    ax[0].set_title("linear impulse |I(t)-I(0)|/|I(0)|")
    ax[1].set_title("total vorticity |W(t)-W(0)|")
    for a in ax:
        a.set_xlabel("time")
        a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validation_impulse.png"), dpi=110)


def leapfrog_big(path, out):
    with open(path) as f:
        d = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    t = [r["time"] for r in d]
    a0, i0 = d[0]["max_alpha"], d[0]["Iz"]
    fig, ax = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    for k, c in ((0, "C0"), (1, "C1")):
        ax[0].plot(t, [r["ring%d_z" % k] for r in d], c, label="ring %d" % k)
        ax[1].plot(t, [r["ring%d_R" % k] for r in d], c)
    ax[2].semilogy(t, [r["max_alpha"] / a0 for r in d], "C2", label="max|α| / start")
    ax[2].semilogy(t, [max(abs(r["Iz"] / i0 - 1), 1e-9) for r in d], "C3", label="|Iz/Iz(0) - 1|")
    ax[0].set_ylabel("centroid z")
    ax[1].set_ylabel("radius")
    ax[2].set_xlabel("time")
    ax[0].legend(fontsize=8)
    ax[2].legend(fontsize=8)
    ax[0].set_title("leapfrog_big (GPU): %s" % os.path.basename(path), fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validation_leapfrog_big.png"), dpi=110)
    swaps = [0.5 * (a["time"] + b["time"]) for a, b in zip(d, d[1:])
             if (a["ring1_z"] - a["ring0_z"]) * (b["ring1_z"] - b["ring0_z"]) < 0]
    print("\n### leapfrog_big (%s, t = 0..%g)\n" % (os.path.basename(path), t[-1]))
    print("- passages at t = " + ", ".join("%.3f" % x for x in swaps))
    print("- max|α| / start: %.3f at most" % max(r["max_alpha"] / a0 for r in d))
    print("- max |Iz/Iz(0) - 1|: %.2e" % max(abs(r["Iz"] / i0 - 1) for r in d))


# ---------------------------------------------------------------------------------------------
# Borisov–Kilin–Mamaev reduced model of coaxial thin rings (Regul. Chaotic Dyn. 18, 2013), with
# the self-energy fitted to Saffman's Gaussian ring; docs/VALIDATION.md ("Coaxial rings against the
# reduced model"; docs/MATH.md §17 derives it, eqs. B1–B8).
# State y = (z_1..z_n, R_1..R_n, Q_1..Q_n). Ring i's core is a_i² = Q_i/R_i + S_i (eq. B3): Q_i/R_i
# is a Gaussian core that stretching thins (its volume 2π²a²R is kept; viscosity adds dQ/dt = 4νR),
# S_i a part that does not stretch (the particles' smoothing, 2σ²; 0 in BKM's model as posed).

SAFFMAN_C = 0.558            # U = Γ/(4πR)(ln(8R/a) − 0.558), Gaussian core (Saffman 1970)
BKM_BETA = SAFFMAN_C + 1.5   # eq. B5: the self-energy constant when a²R = const (S = 0)


def saffman_speed(gam, R, a):
    return gam / (4 * math.pi * R) * (math.log(8 * R / a) - SAFFMAN_C)


def saffman_mean_speed(gam, R, a2, nu, t0, t1):
    """The mean of Saffman's U over [t0, t1] for a(t)² = a2 + 4νt (∫ ln(A + Bt) dt in closed form)."""
    A, B = a2 + 4 * nu * t0, 4 * nu * (t1 - t0)
    mean_ln = math.log(A) if B == 0 else ((A + B) * math.log(A + B) - A * math.log(A)) / B - 1
    return gam / (4 * math.pi * R) * (math.log(8 * R) - 0.5 * mean_ln - SAFFMAN_C)


def bkm_mutual(m):
    """F(k) = (2/k − k)K(k) − (2/k)E(k) of two coaxial circles (Maxwell's mutual inductance over
    μ0√(R1R2), eq. B2) and dF/dk = ((2 − k²)E/(1 − k²) − 2K)/k², for m = k²."""
    k, K, E = math.sqrt(m), ellipk(m), ellipe(m)
    return (2 / k - k) * K - 2 / k * E, ((2 - m) * E / (1 - m) - 2 * K) / m


def bkm_pairs(y, n):
    """For each pair i < j: i, j, k, F(k), dF/dk, ζ = z_i − z_j, D² = ζ² + (R_i + R_j)²."""
    z, R = y[:n], y[n:2 * n]
    for i in range(n):
        for j in range(i + 1, n):
            zeta = z[i] - z[j]
            D2 = zeta * zeta + (R[i] + R[j]) ** 2
            m = 4 * R[i] * R[j] / D2
            yield (i, j, math.sqrt(m)) + bkm_mutual(m) + (zeta, D2)


def bkm_self_energy(gam, R, Q, S):
    """∫ 2πΓR·U_Saffman(R, a(R)) dR at fixed Q and S (eq. B5); = ½Γ²R(ln(8R/a) − β) when S = 0."""
    if Q == 0:
        G = R * math.log(S * R) - R                      # G = ∫ ln(Q + SR) dR
    else:
        x = S * R / Q
        G = R * math.log(Q) + (R * ((1 + x) * math.log1p(x) / x - 1) if x > 0 else 0.0)
    return 0.5 * gam ** 2 * (R * (math.log(8) - SAFFMAN_C) + 1.5 * (R * math.log(R) - R) - 0.5 * G)


def bkm_energy(y, gam, S):
    """The Hamiltonian (eq. B4): self-energies plus the pair interactions."""
    n = len(gam)
    H = sum(bkm_self_energy(gam[i], y[n + i], y[2 * n + i], S[i]) for i in range(n))
    for i, j, k, F, dF, zeta, D2 in bkm_pairs(y, n):
        H += gam[i] * gam[j] * math.sqrt(y[n + i] * y[n + j]) * F
    return H


def bkm_rhs(t, y, gam, S, nu):
    """Hamilton's equations in (z_i, P_i = πΓ_i R_i²) at fixed Q_i (eq. B6), and dQ_i/dt = 4νR_i (eq. B7)."""
    n = len(gam)
    R, Q = y[n:2 * n], y[2 * n:]
    dHdR = [0.5 * gam[i] ** 2 * (math.log(8 * R[i] / math.sqrt(Q[i] / R[i] + S[i])) - SAFFMAN_C) for i in range(n)]
    dHdz = [0.0] * n
    for i, j, k, F, dF, zeta, D2 in bkm_pairs(y, n):
        g, s = gam[i] * gam[j], math.sqrt(R[i] * R[j])
        dHdz[i] += g * s * dF * (-k * zeta / D2)
        dHdz[j] -= g * s * dF * (-k * zeta / D2)
        for p in (i, j):
            dHdR[p] += g * s * (F / (2 * R[p]) + dF * k * (0.5 / R[p] - (R[i] + R[j]) / D2))
    c = [1 / (2 * math.pi * gam[i] * R[i]) for i in range(n)]
    return ([c[i] * dHdR[i] for i in range(n)] + [-c[i] * dHdz[i] for i in range(n)]
            + [4 * nu * R[i] for i in range(n)])


def bkm_solve(z0, R0, a0, S, gam, t_end, nu=0.0):
    """Integrate the model from rings at z0 with radii R0, stretching cores a0 and fixed parts S
    (DOP853, rtol 1e-12). Returns solve_ivp's result: .sol(t) is the dense state, .t_events[0] the
    passages z_1 = z_2 (two rings)."""
    y0 = list(z0) + list(R0) + [a * a * R for a, R in zip(a0, R0)]

    def passage(t, y, *args):
        return y[0] - y[1]

    return solve_ivp(bkm_rhs, (0.0, t_end), y0, method="DOP853", rtol=1e-12, atol=1e-14, dense_output=True,
                     args=(list(gam), list(S), nu), events=passage if len(gam) == 2 else None)


def bkm_variants(core, sigma):
    """(label, stretching core a0, fixed part S) of the model for particle rings with core a (0: thin
    rings) and Gaussian smoothing σ: BKM as posed (a_eff²R = const), and the smoothing not stretched."""
    if core == 0:
        a = math.sqrt(math.e) * sigma
        return [("BKM, a = √e·σ, a²R = const", a, 0.0), ("a = √e·σ fixed (blobs do not stretch)", 0.0, a * a)]
    a = math.sqrt(core * core + 2 * sigma * sigma)
    return [("BKM, a_eff²R = const", a, 0.0),
            ("a² = a0²R0/R + 2σ² (smoothing not stretched)", core, 2 * sigma * sigma)]


def ring_velocity_biot_savart(gam, R, zr, r, z, m=4096):
    """(u_r, u_z) at (r, 0, z) of a circular filament (radius R at height zr), by the trapezoidal rule
    on the Biot–Savart integral: an independent check of the interaction terms."""
    ur = uz = 0.0
    for q in range(m):
        phi = 2 * math.pi * (q + 0.5) / m
        dl = (-R * math.sin(phi), R * math.cos(phi), 0.0)
        d = (r - R * math.cos(phi), -R * math.sin(phi), z - zr)
        d3 = (d[0] ** 2 + d[1] ** 2 + d[2] ** 2) ** 1.5
        ur += (dl[1] * d[2] - dl[2] * d[1]) / d3
        uz += (dl[0] * d[1] - dl[1] * d[0]) / d3
    f = gam / (4 * math.pi) * 2 * math.pi / m
    return ur * f, uz * f


def bkm_check(core, sigma, R=0.3, sep=0.15):
    """The model's self-checks, each with its threshold (exit on failure), and its leapfrog for two
    coaxial rings of radius R, Γ = 1, sep apart, with the cores of bkm_variants(core, sigma)."""
    a = math.sqrt(core * core + 2 * sigma * sigma)
    fails = []

    def check(name, value, limit):
        print("- %s: %.2e (limit %.0e)" % (name, value, limit))
        if not value < limit:
            fails.append(name)

    print("\n### Reduced model (BKM) self-checks\n")
    T = 1.0
    for nu, a0, S in ((0.0, a, 0.0), (1e-4, a, 0.0), (1e-4, core, a * a - core * core)):
        s = bkm_solve([0.0], [R], [a0], [S], [1.0], T, nu)
        U = s.sol(T)[0] / T
        Us = saffman_mean_speed(1.0, R, a * a, nu, 0, T)
        check("lone ring, ν = %g, S = %.2g: |Δz/T / mean Saffman U(a² = %.3g + 4νt) − 1| (R moved %.0e)"
              % (nu, S, a * a, abs(s.sol(T)[1] / R - 1)), abs(U / Us - 1), 1e-6)
    check("S = 0: self-energy against ½Γ²R(ln(8R/a) − β), β = %.3f (relative)" % BKM_BETA,
          abs(bkm_self_energy(1.0, R, a * a * R, 0.0) / (0.5 * R * (math.log(8 * R / a) - BKM_BETA)) - 1), 1e-12)
    gam, S = [1.0, 0.7], [2 * sigma * sigma, 0.0]
    y = [0.0, sep, R, 1.1 * R, core * core * R, a * a * 1.1 * R]
    f = bkm_rhs(0.0, y, gam, S, 0.0)
    ur, uz = ring_velocity_biot_savart(0.7, 1.1 * R, sep, R, 0.0)
    check("interaction velocity on ring 1 vs Biot–Savart quadrature (relative)",
          max(abs(f[2] - ur), abs(f[0] - saffman_speed(1.0, R, a) - uz)) / abs(uz), 1e-8)
    err = 0.0
    for p in range(4):
        h = 1e-6 * (1 if p < 2 else R)
        yp, ym = list(y), list(y)
        yp[p] += h
        ym[p] -= h
        d = (bkm_energy(yp, gam, S) - bkm_energy(ym, gam, S)) / (2 * h)
        i = p % 2
        c = 2 * math.pi * gam[i] * y[2 + i]
        err = max(err, abs((-f[2 + i] if p < 2 else f[i]) * c - d) / abs(d))
    check("Hamilton's equations vs central differences of H (relative)", err, 1e-6)
    for label, a0, S in bkm_variants(core, sigma):
        s = bkm_solve([0.5 - sep, 0.5], [R, R], [a0, a0], [S, S], [1.0, 1.0], 0.7)
        H = [bkm_energy(s.sol(t), [1.0, 1.0], [S, S]) for t in [0.7 * q / 700 for q in range(701)]]
        check("leapfrog (%s), H(t)/H(0) − 1 over t = 0..0.7" % label, max(abs(h / H[0] - 1) for h in H), 1e-8)
        tp = s.t_events[0]
        print("- leapfrog (%s; R = %g, sep %g): passages at t = %s; period %.4f"
              % (label, R, sep, ", ".join("%.4f" % t for t in tp), (tp[-1] - tp[0]) / (len(tp) - 1)))
    if fails:
        sys.exit("validation.py: the reduced model failed: " + "; ".join(fails))


def bkm_compare(d, variants, nu, out, png, title):
    """Integrate the model variants (bkm_variants) from the first row's ring positions and radii
    (rows d: dicts of a diagnostics CSV with ring0, ring1); plot them with the run and print the
    passages and the largest deviations up to the third passage, in units of the starting radius."""
    t = [r["time"] for r in d]
    z0 = [d[0]["ring%d_z" % k] for k in (0, 1)]
    R0 = [d[0]["ring%d_R" % k] for k in (0, 1)]
    gap = [r["ring1_z"] - r["ring0_z"] for r in d]
    runp = [t[i] + (t[i + 1] - t[i]) * gap[i] / (gap[i] - gap[i + 1]) for i in range(len(d) - 1)
            if gap[i] * gap[i + 1] < 0]
    print("\n### %s (ν = %g)\n" % (title, nu))
    print("| | passages at t = | max \\|Δz\\| / R0 | max \\|ΔR\\| / R0 | up to t |")
    print("|---|---|---|---|---|")
    print("| particles | %s | | | |" % ", ".join("%.3f" % x for x in runp))
    fig, ax = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    for k, c in ((0, "C0"), (1, "C1")):
        ax[0].plot(t, [r["ring%d_z" % k] for r in d], c, label="ring %d, particles" % k)
        ax[1].plot(t, [r["ring%d_R" % k] for r in d], c)
    res = []
    for (label, a0, S), ls in zip(variants, ("--", ":")):
        s = bkm_solve(z0, R0, [a0, a0], [S, S], [1.0, 1.0], t[-1], nu)
        m = [s.sol(x) for x in t]
        tp = list(s.t_events[0])
        t3 = min(runp[2] if len(runp) > 2 else t[-1], tp[2] if len(tp) > 2 else t[-1])
        dz = max(abs(mm[k] - r["ring%d_z" % k]) for mm, r in zip(m, d) if r["time"] <= t3 for k in (0, 1)) / R0[0]
        dR = max(abs(mm[2 + k] - r["ring%d_R" % k]) for mm, r in zip(m, d) if r["time"] <= t3 for k in (0, 1)) / R0[0]
        print("| model: %s | %s | %.2e | %.2e | %.3f |" % (label, ", ".join("%.3f" % x for x in tp), dz, dR, t3))
        res.append((label, tp, dz, dR))
        for k, c in ((0, "C0"), (1, "C1")):
            ax[0].plot(t, [mm[k] for mm in m], c + ls, lw=1, label="ring %d, %s" % (k, label))
            ax[1].plot(t, [mm[2 + k] for mm in m], c + ls, lw=1)
    ax[0].set_ylabel("centroid z")
    ax[1].set_ylabel("radius")
    ax[1].set_xlabel("time")
    ax[0].legend(fontsize=7)
    ax[0].set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, png), dpi=110)
    return runp, res


def read_csv(path):
    with open(path) as f:
        return [{k: float(v) if v not in ("", None) else math.nan for k, v in r.items()} for r in csv.DictReader(line for line in f if not line.startswith("#"))]


# ---------------------------------------------------------------------------------------------
# Saffman's viscous ring: one resolved ring, remeshed and relaxed, inviscid and at two viscosities.

SAFF_CORE, SAFF_SIGMA, SAFF_LAYERS, SAFF_AROUND = 0.12, 0.08, 2, 80
SAFF_DT, SAFF_T, SAFF_WIN = 0.03, 1.2, 0.6
# (ν, relaxation factor): relaxation is off in the comparison runs and on in the last, to show that
# the sign-keeping relaxation (docs/MATH.md, "Long runs") leaves the impulse and the speed alone.
SAFF_CASES = ((0.0, 0.0), (1e-3, 0.0), (4e-3, 0.0), (0.0, 0.3))


def saffman_runs(exe, tmp, cases=SAFF_CASES):
    """The runs' rows by case (ν, relaxation), and under "ref" the ring as generated, not remeshed
    (10 RK4 steps of 0.01, as in ring_table: the resolution's share of the error). A CSV already in tmp
    (validation.py --saffman-dir) is read instead of run again."""
    scene = ring_scene(SAFF_CORE, SAFF_LAYERS, SAFF_AROUND, SAFF_SIGMA)
    todo = [((nu, relax), "saff_%g_%g" % (nu, relax),
             ["--dt", str(SAFF_DT), "--t-end", str(SAFF_T), "--diag-every", "10", "--remesh-every", "10",
              "--relax", "%g" % relax, "--energy-max", "0", "--viscosity", "%g" % nu]) for nu, relax in cases]
    todo.append(("ref", "saff_ref", ["--steps", "10", "--dt", "0.01", "--diag-every", "10", "--energy-max", "0"]))
    runs = {}
    for key, tag, args in todo:
        path = os.path.join(tmp, tag + ".csv")
        runs[key] = read_csv(path) if os.path.exists(path) else run(exe, scene, args, tmp, tag)
    return runs


def saffman_speeds(d, a2, nu):
    """Window centres, the measured U over each window of SAFF_WIN and Saffman's mean U over it."""
    R = math.sqrt(d[0]["Iz"] / math.pi)
    w = max(1, int(round(SAFF_WIN / 2 / (d[1]["time"] - d[0]["time"]))))
    tm, um, us = [], [], []
    for i in range(w, len(d) - w):
        t0, t1 = d[i - w]["time"], d[i + w]["time"]
        tm.append(d[i]["time"])
        um.append((d[i + w]["ring0_z"] - d[i - w]["ring0_z"]) / (t1 - t0))
        us.append(saffman_mean_speed(1.0, R, a2, nu, t0, t1))
    return tm, um, us


def saffman_report(runs, out):
    """The table (stdout) and docs/validation_saffman.png of saffman_runs' rows."""
    a2 = SAFF_CORE ** 2 + 2 * SAFF_SIGMA ** 2
    print("\n### Saffman's viscous ring (R = 1, Γ = 1, a = %g, σ = h = %g, a_eff(0) = %.4f, %d stations, "
          "RK4 dt = %g, remeshed every 10 steps)\n" % (SAFF_CORE, SAFF_SIGMA, math.sqrt(a2), SAFF_AROUND, SAFF_DT))
    print("| ν | relaxation | elements start → end | a(T)/a(0) | max ΔIz/Iz | Σ\\|α\\| end/start "
          "| mean U measured (windows of %g centred at t = %g..%g) | mean U Saffman | mean error | largest error |"
          % (SAFF_WIN, SAFF_WIN / 2, SAFF_T - SAFF_WIN / 2))
    print("|---|---|---|---|---|---|---|---|---|---|")
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    cases = [k for k in runs if k != "ref"]
    for (nu, relax), c in zip(cases, ("C0", "C1", "C2", "C3", "C4", "C5")):
        d = runs[(nu, relax)]
        tm, um, us = saffman_speeds(d, a2, nu)
        err = [x / y - 1 for x, y in zip(um, us)]
        tag = "ν = %g%s" % (nu, ", relaxation %g" % relax if relax else "")
        ax[0].plot(tm, um, c + "o-", ms=3, label=tag + ", particles")
        if not relax:
            ax[0].plot(tm, us, c + "--", label=tag + ", Saffman")
        ax[1].plot(tm, [100 * e for e in err], c + "o-", ms=3, label=tag)
        print("| %g | %g | %d → %d | %.3f | %.1e | %.3f | %.5f | %.5f | %+.2f%% | %+.2f%% |"
              % (nu, relax, d[0]["n_elem"], d[-1]["n_elem"], math.sqrt(1 + 4 * nu * d[-1]["time"] / a2),
                 max(abs(r["Iz"] / d[0]["Iz"] - 1) for r in d), d[-1]["sum_abs_alpha"] / d[0]["sum_abs_alpha"],
                 sum(um) / len(um), sum(us) / len(us), 100 * (sum(um) / sum(us) - 1), 100 * max(err, key=abs)))
    d = runs["ref"]
    U = (d[-1]["ring0_z"] - d[0]["ring0_z"]) / (d[-1]["time"] - d[0]["time"])
    Us = saffman_speed(1.0, math.sqrt(d[0]["Iz"] / math.pi), math.sqrt(a2))
    print("| 0, not remeshed (t = 0..%g) | 0 | %d | 1 | %.1e | %.3f | %.5f | %.5f | %+.2f%% | |"
          % (d[-1]["time"], d[0]["n_elem"], abs(d[-1]["Iz"] / d[0]["Iz"] - 1),
             d[-1]["sum_abs_alpha"] / d[0]["sum_abs_alpha"], U, Us, 100 * (U / Us - 1)))
    ax[1].axhline(100 * (U / Us - 1), color="0.5", lw=0.8, ls=":", label="not remeshed, t = 0..0.1")
    ax[0].set_ylabel("ring speed U")
    ax[1].set_ylabel("U / U_Saffman − 1 (%)")
    for a in ax:
        a.set_xlabel("time (window centre)")
        a.legend(fontsize=7)
    ax[0].set_title("Saffman's viscous ring: R = 1, a_eff(0) = %.3f, h = σ = %g" % (math.sqrt(a2), SAFF_SIGMA),
                    fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validation_saffman.png"), dpi=110)


# The same ring at a finer core: σ = 0.05 (a_eff(0)/R = 0.139), 4 annuli and 128 stations, remeshed on
# a lattice h = σ/1.5 with the conservative correction (conserve = full) after each drop.
FINE_SIGMA, FINE_LAYERS, FINE_AROUND = 0.05, 4, 128
FINE_CASES = (("no relaxation", 0.0, 0.0), ("relaxation 0.3 every step", 0.0, 0.3), ("ν = 1e-3, no relaxation", 1e-3, 0.0))


def saffman_fine(exe, tmp):
    """The table of the finer ring (stdout): per case the elements, Σ|α|, the impulse and the speed
    error against Saffman's U(t) over windows of SAFF_WIN. A CSV already in tmp is read instead."""
    scene = ring_scene(SAFF_CORE, FINE_LAYERS, FINE_AROUND, FINE_SIGMA)
    a2 = SAFF_CORE ** 2 + 2 * FINE_SIGMA ** 2
    print("\n### Saffman's ring at σ = %g, h = σ/1.5, conserve = full (a_eff(0) = %.4f, %d stations, %d annuli)\n"
          % (FINE_SIGMA, math.sqrt(a2), FINE_AROUND, FINE_LAYERS))
    print("| variant | elements start → end | Σ\\|α\\| end/start | max ΔIz/Iz | mean U error | largest |")
    print("|---|---|---|---|---|---|")
    for label, nu, relax in FINE_CASES:
        tag = "fine_%g_%g" % (nu, relax)
        args = ["--dt", str(SAFF_DT), "--t-end", str(SAFF_T), "--diag-every", "10", "--remesh-every", "10",
                "--energy-max", "0", "--viscosity", "%g" % nu, "--remesh-h", "%.6g" % (FINE_SIGMA / 1.5),
                "--conserve", "full", "--relax", "%g" % relax]
        path = os.path.join(tmp, tag + ".csv")
        d = read_csv(path) if os.path.exists(path) else run(exe, scene, args, tmp, tag)
        tm, um, us = saffman_speeds(d, a2, nu)
        err = [x / y - 1 for x, y in zip(um, us)]
        print("| %s | %d → %d | %.3f | %.1e | %+.2f%% | %+.2f%% |"
              % (label, d[0]["n_elem"], d[-1]["n_elem"], d[-1]["sum_abs_alpha"] / d[0]["sum_abs_alpha"],
                 max(abs(r["Iz"] / d[0]["Iz"] - 1) for r in d), 100 * (sum(um) / sum(us) - 1),
                 100 * max(err, key=abs)))


def ring_plot(res, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    for core, mk in ((0.1, "o-"), (0.05, "s-")):
        pts = [(n, abs(e) * 100) for (_, c, L, n, e) in res if c == core]
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], mk, label="a/R = %g" % core)
    ax.set_xlabel("elements")
    ax.set_ylabel("|U/U_Saffman - 1| (%)")
    ax.set_title("Ring speed error vs resolution (σ = annulus width)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validation_ring.png"), dpi=110)


PARTS = ("ring", "leapfrog", "impulse", "bkm", "saffman", "saffman_fine", "big")
DEFAULT_PARTS = ("ring", "leapfrog", "impulse", "bkm", "saffman", "big")


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "vortexfmm"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", help="comma-separated parts to run, of " + ",".join(PARTS) +
                    " (default: all but saffman_fine)")
    ap.add_argument("--big", help="diagnostics CSV of a leapfrog_big run to plot")
    ap.add_argument("--big-only", action="store_true", help="same as --only big")
    ap.add_argument("--bkm", help="diagnostics CSV of a two-ring leapfrog run to compare with the reduced model")
    ap.add_argument("--bkm-core", type=float, default=0.0,
                    help="the run's core a, 0 for thin rings (default: leapfrog_big's thin filaments)")
    ap.add_argument("--bkm-sigma", type=float, default=0.005,
                    help="the run's σ: the model's a_eff = √(a² + 2σ²), √e·σ for thin rings (--bkm-core 0)")
    ap.add_argument("--bkm-nu", type=float, default=0.0, help="the run's viscosity")
    ap.add_argument("--bkm-png", default="validation_bkm.png", help="the figure's file name under --out")
    ap.add_argument("--saffman-dir", help="keep the saffman and saffman_fine runs' CSVs here, and reuse those "
                    "already here")
    a = ap.parse_args()
    parts = set(DEFAULT_PARTS if not (a.only or a.big_only) else ["big"] if a.big_only else a.only.split(","))
    if parts - set(PARTS):
        sys.exit("validation.py: unknown part(s) %s; the parts are %s"
                 % (",".join(sorted(parts - set(PARTS))), ",".join(PARTS)))
    os.makedirs(a.out, exist_ok=True)
    if "big" in parts and a.big:
        leapfrog_big(a.big, a.out)
    if "bkm" in parts:
        bkm_check(a.bkm_core, a.bkm_sigma)
        if a.bkm:
            bkm_compare(read_csv(a.bkm), bkm_variants(a.bkm_core, a.bkm_sigma), a.bkm_nu, a.out, a.bkm_png,
                        "%s (solid) and the reduced model" % os.path.basename(a.bkm))
    if not parts & {"ring", "leapfrog", "impulse", "saffman", "saffman_fine"}:
        return
    if not os.access(a.exe, os.X_OK):
        sys.exit("validation.py: %s not found; build first (scripts/setup)" % a.exe)
    with tempfile.TemporaryDirectory() as tmp:
        if "ring" in parts:
            ring_plot(ring_table(a.exe, tmp, a.quick), a.out)
        if "leapfrog" in parts:
            leapfrog(a.exe, tmp, a.out)
        if "impulse" in parts:
            impulse(a.exe, tmp, a.out)
        if "saffman" in parts:
            if a.saffman_dir:
                os.makedirs(a.saffman_dir, exist_ok=True)
            saffman_report(saffman_runs(a.exe, a.saffman_dir or tmp), a.out)
        if "saffman_fine" in parts:
            if a.saffman_dir:
                os.makedirs(a.saffman_dir, exist_ok=True)
            saffman_fine(a.exe, a.saffman_dir or tmp)


if __name__ == "__main__":
    main()
