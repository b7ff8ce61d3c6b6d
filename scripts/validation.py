#!/usr/bin/python3
"""scripts/validation.py — runs the physical validation of the vortex module through the
`vortexfmm --headless` command line and makes the numbers and plots of docs/VALIDATION.md.

  /usr/bin/python3 scripts/validation.py [--exe build/vortexfmm] [--out docs] [--quick]
  /usr/bin/python3 scripts/validation.py --big docs/data/leapfrog_big_h100_2026-11-22.csv --big-only

Needs python3-matplotlib (scripts/setup installs it; use the Debian /usr/bin/python3). CPU only;
about 3 minutes on 2 cores (--quick: the ring table without its finest row). Writes
  docs/validation_leapfrog.png  ring centroid z and radius vs time, two leapfrogging rings
  docs/validation_impulse.png   drift of linear impulse and total vorticity, both schemes
  docs/validation_ring.png      ring speed error vs resolution
and prints the tables (markdown) on stdout. With --big CSV (the diagnostics of a GPU run of
leapfrog_big, e.g. `vortexfmm --headless --scene leapfrog_big --backend cuda --steps 3500 --diag
CSV --diag-every 20 --energy-max 0`) it also draws
  docs/validation_leapfrog_big.png  its rings' centroids and radii, max|α| and impulse drift
(--big-only: that plot alone, no CPU runs).
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(exe, scene_text, args, tmp, tag):
    scene = os.path.join(tmp, tag + ".scene")
    diag = os.path.join(tmp, tag + ".csv")
    with open(scene, "w") as f:
        f.write(scene_text)
    cmd = [exe, "--headless", "--scene", scene, "--diag", diag, "--quiet", "--backend", "cpu"] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("validation.py: %s failed (exit %d):\n%s" % (" ".join(cmd), r.returncode, r.stderr))
    with open(diag) as f:
        rows = list(csv.DictReader(f))
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


def impulse(exe, tmp, out):
    common = ["--steps", "240", "--dt", "0.005", "--diag-every", "2", "--energy-max", "0"]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    print("\n### Invariants, wavy leapfrog (mode-3 perturbation 3%), t = 0..1.2\n")
    print("| scheme | solver | max ΔI/|I| | max |ΔW| (Σ|α| ≈ 3.8) |")
    print("|---|---|---|---|")
    for scheme, c in (("classical", "C0"), ("transpose", "C1")):
        for solver, ls in (("direct", "-"), ("fmm", "--")):
            args = common + ["--stretching", scheme] + (["--direct"] if solver == "direct" else [])
            d = run(exe, LEAP % WAVY, args, tmp, "inv_%s_%s" % (scheme, solver))
            t = [r["time"] for r in d]
            I0 = math.sqrt(sum(d[0]["I" + q] ** 2 for q in "xyz"))
            dI = [math.sqrt(sum((r["I" + q] - d[0]["I" + q]) ** 2 for q in "xyz")) / I0 for r in d]
            dW = [math.sqrt(sum((r["W" + q] - d[0]["W" + q]) ** 2 for q in "xyz")) for r in d]
            ax[0].semilogy(t, [max(x, 1e-18) for x in dI], c + ls, label="%s, %s" % (scheme, solver))
            ax[1].semilogy(t, [max(x, 1e-18) for x in dW], c + ls, label="%s, %s" % (scheme, solver))
            print("| %s | %s | %.2e | %.2e |" % (scheme, solver, max(dI), max(dW)))
    ax[0].set_title("linear impulse |I(t)-I(0)|/|I(0)|")
    ax[1].set_title("total vorticity |W(t)-W(0)|")
    for a in ax:
        a.set_xlabel("time")
        a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validation_impulse.png"), dpi=110)


def leapfrog_big(path, out):
    with open(path) as f:
        d = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
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
    ax[0].set_title("leapfrog_big (GPU): 2^15 elements, a = 0.005, σ = 0.004, RK4 dt = 0.0002", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validation_leapfrog_big.png"), dpi=110)
    swaps = [0.5 * (a["time"] + b["time"]) for a, b in zip(d, d[1:])
             if (a["ring1_z"] - a["ring0_z"]) * (b["ring1_z"] - b["ring0_z"]) < 0]
    print("\n### leapfrog_big (%s, t = 0..%g)\n" % (os.path.basename(path), t[-1]))
    print("- passages at t = " + ", ".join("%.3f" % x for x in swaps))
    print("- max|α| / start: %.3f at most" % max(r["max_alpha"] / a0 for r in d))
    print("- max |Iz/Iz(0) - 1|: %.2e" % max(abs(r["Iz"] / i0 - 1) for r in d))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "vortexfmm"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--big", help="diagnostics CSV of a leapfrog_big run to plot")
    ap.add_argument("--big-only", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.big:
        leapfrog_big(a.big, a.out)
    if a.big_only:
        return
    if not os.access(a.exe, os.X_OK):
        sys.exit("validation.py: %s not found; build first (scripts/setup)" % a.exe)
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        res = ring_table(a.exe, tmp, a.quick)
        fig, ax = plt.subplots(figsize=(6, 4))
        for core, mk in ((0.1, "o-"), (0.05, "s-")):
            pts = [(n, abs(e) * 100) for (_, c, L, n, e) in res if c == core]
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], mk, label="a/R = %g" % core)
        ax.set_xlabel("elements")
        ax.set_ylabel("|U/U_Saffman - 1| (%)")
        ax.set_title("Ring speed error vs resolution (σ = annulus width)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "validation_ring.png"), dpi=110)
        leapfrog(a.exe, tmp, a.out)
        impulse(a.exe, tmp, a.out)


if __name__ == "__main__":
    main()
