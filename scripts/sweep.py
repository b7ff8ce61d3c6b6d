#!/usr/bin/env python3
"""Stability sweep: random ring scenes from a fixed distribution, each run in batch mode and judged.

    python3 scripts/sweep.py --backend cuda --n 200 --seed 1 --jobs 4           # a GPU sweep, t = 10
    OMP_NUM_THREADS=1 python3 scripts/sweep.py --reduced --backend cpu --n 20   # a CPU sweep: 1-2 rings, t = 2
    python3 scripts/sweep.py --dry-run --n 20                                   # scenes and commands only
    python3 scripts/sweep.py --only 4,10 --args "--stretching classical"         # two scenes, with an override

Scenes use physical keys only: each ring's radius, core, circulation, centre, axis and centreline
wave, the flow's Reynolds number (the key reynolds) when it is viscous, and the key resolution
(--resolution, normal by default). Everything numerical is the program's own choice (vortex/numerics.h:
sigma, the lattice, each ring's stations and layers, dt, remeshing, the viscosity floor).

Distribution (scene i of seed S draws from random.Random("S:i"), so a scene does not depend on --n):
  rings        1..4, uniform; 1 ring: configuration "single" (travelling along d)
  configuration (2..4 rings), uniform of six; d is a uniform random direction, e1 _|_ d random:
    coaxial       stacked along d, all travelling along d, separation u*(R_i+R_j)/2 + 2(a_i+a_j), u in [0.3, 0.8]
    side-by-side  centres on a regular polygon in the plane _|_ d (2 rings: a segment), neighbours'
                  centres 2 Rmax + g apart, g = u*Rmax + 4 amax, u in [0.1, 0.5]; all travel along d
    chasing       coaxial, sorted largest first (in front) and smaller behind, separation
                  u*Rmax + 2(a_i+a_j), u in [1, 2]: the small rings, faster, catch up
    oblique       side-by-side with each direction tilted by theta in [10, 40] deg towards the polygon's centre
    head-on       ceil(n/2) rings travel along d, the others against it, each group coaxially stacked
                  (as coaxial), the groups' nearest rings u*Rmax + 4 amax apart, u in [0.8, 2]
    off-axis      head-on with the second group's axis shifted by v*Rmax along e1, v in [0.2, 1]
  radius R     uniform in [0.1, 0.4] per ring
  core a       a/R log-uniform per ring in [0.02, 0.06] (thin-core scene) or [0.06, 0.2] (thick), 1:1 per scene
  circulation  |Gamma| uniform in [0.5, 2], sign +/- 1:1 per ring; `axis` = sign(Gamma) x the direction
               of travel, so the configuration fixes where each ring goes whatever its sign
  wave         per ring with probability 1/2: R(phi) = R (1 + amp cos(m phi)) (the format's
               perturb_amp/perturb_mode, a wave of the radius in the ring's plane; out-of-plane waves
               are not in the format), amp uniform in [0.01, 0.1] (amplitude <= 0.1 R), m in 2..8, phase uniform
  viscosity    per scene with probability 1/2; Re = max|Gamma|/nu log-uniform in [200, 5000] (the key reynolds)
  placement    the centres' mean at (0.5, 0.5, 0.5)
--reduced (the CPU sweep) writes `resolution = coarse` and makes --t-end 2 and --max-rings 2 the
defaults: small scenes of 1 or 2 rings (with --max-rings M the count is uniform in 1..M; the other
draws are the same, so M = 4 gives the full distribution's scenes).

Criteria (every run: EXE --headless --scene F --backend B --t-end T --diag F.csv --diag-time T/200
--tracers 0 --quiet, about 200 rows; I, max|alpha|, E from the diagnostics CSV):
  (1) no blow-up or breakdown: exit 0 and the last row at T; exit 3 is the program's blow-up rule
      (vortex/sim.h), reported with its last stderr line; another exit status is an error
  (2) linear impulse: |I - I0| <= 1e-3 max(|I0|, sum |Gamma| pi R^2)
  (3) max|alpha| <= 3 x its value in the first row
  (4) energy never rising: E - min(E so far) <= 5e-3 |E0| (rows without an energy are skipped), E the
      smoothing kernel's energy E_sigma (column energy_sigma, vortex/diag.h) where the program sums it
      in the first row (a flow of at most 8192 elements on the CPU, 131072 on the GPU), else the
      particle form (column energy). E_sigma is the energy of the smoothed field the particles carry:
      remeshing and a coarsening lattice only lower it, while the particle form of a lattice flow
      whose cores are narrower than sigma rises tens of per cent a time unit as E_sigma holds. The
      tolerance is the particle form's own wander on a ring that holds: the shipped single_ring,
      inviscid, swings by 3.5e-3 E0 over t = 10 on the GPU, while every breakdown seen rises past
      2e-2 (E_sigma of the default leapfrog stays within 4e-4 where the particle form swings by 4e-3)
  (5) no wall-time limit (--timeout: SIGTERM, the program finalizes its CSV, then SIGKILL) and no crash (a signal).
      Several GPU runs at once want MPS (`nvidia-cuda-mps-control -d`): without it the GPU time-slices their
      contexts, slowing every run many times over; the sweep says so when it starts
Result: pass, or the run's outcome (fail: ran to T with a criterion broken; blow-up; timeout;
crash; error) with its first failure, the earliest in time of every criterion broken (a run-level
failure is timed at its last row). OUT/summary.md (printed too) holds the table and the pass rate;
OUT/results.jsonl one JSON record a scene; OUT/sNNN.scene the scenes, each with a header saying
how it was drawn; OUT/commands.sh the commands.
"""
import argparse
import concurrent.futures as cf
import csv
import json
import math
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

CONFIGS = ("coaxial", "side-by-side", "chasing", "oblique", "head-on", "off-axis")
ROWS = 200           # diagnostics rows a run aims at
TOL_I, TOL_ALPHA, TOL_E = 1e-3, 3.0, 5e-3


def add(a, b): return [x + y for x, y in zip(a, b)]
def mul(s, a): return [s * x for x in a]
def dot(a, b): return sum(x * y for x, y in zip(a, b))
def norm(a): return math.sqrt(dot(a, a))
def unit(a): return mul(1.0 / norm(a), a)
def cross(a, b): return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def random_unit(rng):
    while True:
        v = [rng.gauss(0.0, 1.0) for _ in range(3)]
        if norm(v) > 1e-6:
            return unit(v)


def log_uniform(rng, lo, hi): return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def stack(rings, start, d, sign, lo, hi, rng):
    """Rings coaxially along d from `start`, each the next one further along sign*d; returns the info."""
    pos, us = start, []
    for i, r in enumerate(rings):
        if i > 0:
            p = rings[i - 1]
            u = rng.uniform(lo, hi)
            us.append(u)
            pos += u * (p["R"] + r["R"]) / 2 + 2 * (p["a"] + r["a"])
        r["c"] = mul(sign * pos, d)
    return us


def place(config, rings, d, e1, rng):
    """Each ring's centre c (relative) and direction of travel t; returns the layout's own draws."""
    n, e2 = len(rings), cross(d, e1)
    rmax, amax = max(r["R"] for r in rings), max(r["a"] for r in rings)
    if config == "single":
        rings[0]["c"], rings[0]["t"] = [0.0, 0.0, 0.0], d
        return {}
    if config in ("coaxial", "chasing"):
        if config == "chasing":
            rings.sort(key=lambda r: -r["R"])
            pos, us = 0.0, []
            for i, r in enumerate(rings):
                if i > 0:
                    us.append(rng.uniform(1.0, 2.0))
                    pos += us[-1] * rmax + 2 * (rings[i - 1]["a"] + r["a"])
                r["c"], r["t"] = mul(-pos, d), d
            return {"u": us}
        us = stack(rings, 0.0, d, -1.0, 0.3, 0.8, rng)
        for r in rings:
            r["t"] = d
        return {"u": us}
    if config in ("side-by-side", "oblique"):
        g = rng.uniform(0.1, 0.5) * rmax + 4 * amax
        theta = math.radians(rng.uniform(10.0, 40.0)) if config == "oblique" else 0.0
        rho = (2 * rmax + g) / (2 * math.sin(math.pi / n))
        for k, r in enumerate(rings):
            out = add(mul(math.cos(2 * math.pi * k / n), e1), mul(math.sin(2 * math.pi * k / n), e2))
            r["c"] = mul(rho, out)
            r["t"] = unit(add(mul(math.cos(theta), d), mul(-math.sin(theta), out)))
        return {"gap": g, "tilt_deg": math.degrees(theta)}
    k = (n + 1) // 2                                    # head-on, off-axis
    gap = rng.uniform(0.8, 2.0) * rmax + 4 * amax
    stack(rings[:k], gap / 2, d, -1.0, 0.3, 0.8, rng)   # the rear group, travelling along d
    stack(rings[k:], gap / 2, d, 1.0, 0.3, 0.8, rng)    # the front group, travelling against d
    shift = rng.uniform(0.2, 1.0) * rmax if config == "off-axis" else 0.0
    for i, r in enumerate(rings):
        r["t"] = d if i < k else mul(-1.0, d)
        if i >= k:
            r["c"] = add(r["c"], mul(shift, e1))
    return {"gap": gap, "offset": shift}


def draw_scene(seed, i, resolution, max_rings=4):
    """Scene i of seed: (scene text, record of its draws)."""
    rng = random.Random(f"{seed}:{i}")
    n = rng.randint(1, max_rings)
    config = "single" if n == 1 else rng.choice(CONFIGS)
    thick = rng.random() < 0.5
    lo, hi = (0.06, 0.2) if thick else (0.02, 0.06)
    rings = []
    for _ in range(n):
        R = rng.uniform(0.1, 0.4)
        ring = {"R": R, "a": log_uniform(rng, lo, hi) * R, "G": rng.uniform(0.5, 2.0) * rng.choice((-1, 1))}
        if rng.random() < 0.5:
            ring.update(amp=rng.uniform(0.01, 0.1), mode=rng.randint(2, 8), phase=rng.uniform(0.0, 2 * math.pi))
        rings.append(ring)
    d = random_unit(rng)
    e1 = unit(cross(d, random_unit(rng)))
    layout = place(config, rings, d, e1, rng)
    mean = mul(1.0 / n, [sum(r["c"][j] for r in rings) for j in range(3)])
    for r in rings:
        r["c"] = add(add(r["c"], mul(-1.0, mean)), [0.5, 0.5, 0.5])
        r["axis"] = mul(math.copysign(1.0, r["G"]), r["t"])
    re = log_uniform(rng, 200.0, 5000.0) if rng.random() < 0.5 else None
    rec = {"seed": seed, "index": i, "config": config, "n_rings": n, "core": "thick" if thick else "thin",
           "Re": re, "direction": d, "layout": layout, "resolution": resolution,
           "impulse_scale": sum(abs(r["G"]) * math.pi * r["R"]**2 for r in rings),
           "rings": [{k: r[k] for k in ("R", "a", "G", "c", "axis", "amp", "mode", "phase") if k in r} for r in rings]}
    return scene_text(rec), rec


def fmt(v): return " ".join(f"{x:.9g}" for x in v) if isinstance(v, list) else f"{v:.9g}"


def scene_text(rec):
    lay = ", ".join(f"{k} {' '.join(f'{x:.3g}' for x in (v if isinstance(v, list) else [v]))}"
                    for k, v in rec["layout"].items())
    visc = f"viscous, Re = max|Gamma|/nu = {rec['Re']:.4g}" if rec["Re"] else "inviscid"
    out = [f"# drawn by scripts/sweep.py --seed {rec['seed']} --resolution {rec['resolution']}: scene {rec['index']}",
           f"# {rec['config']}, {rec['n_rings']} ring(s), {rec['core']} cores, {visc}; direction d = "
           f"{' '.join(f'{x:.4f}' for x in rec['direction'])}{'; ' + lay if lay else ''}",
           "# physical keys only: the program derives the numerics; the distribution: scripts/sweep.py's docstring",
           f"name = sweep_{rec['seed']}_{rec['index']:03d}",
           f"description = sweep seed {rec['seed']} scene {rec['index']}: {summary_of(rec)}",
           f"resolution = {rec['resolution']}"]
    if rec["Re"]:
        out.append(f"reynolds = {rec['Re']:.9g}")
    for r in rec["rings"]:
        out += ["", f"[ring]                 # a/R = {r['a'] / r['R']:.4f}", f"circulation = {r['G']:.9g}",
                f"radius = {r['R']:.9g}", f"core = {r['a']:.9g}", f"centre = {fmt(r['c'])}", f"axis = {fmt(r['axis'])}"]
        if "amp" in r:
            out += [f"perturb_amp = {r['amp']:.9g}", f"perturb_mode = {r['mode']}", f"phase = {r['phase']:.9g}"]
    return "\n".join(out) + "\n"


def summary_of(rec):
    waves = sum("amp" in r for r in rec["rings"])
    re = f"Re {rec['Re']:.0f}" if rec["Re"] else "inviscid"
    return f"{rec['config']} x{rec['n_rings']}, {rec['core']}, {re}" + (f", {waves} wavy" if waves else "")


def read_diag(path):
    """The CSV's rows as dicts of floats (None where empty or not a number); [] if absent."""
    try:
        with open(path, newline="") as f:
            lines = [ln for ln in f if not ln.startswith("#")]
    except OSError:
        return []
    rows = []
    for row in csv.DictReader(lines):
        out = {}
        for k, v in row.items():
            try:
                out[k] = float(v)
            except (TypeError, ValueError):
                out[k] = None
        rows.append(out)
    return [r for r in rows if r.get("time") is not None]


def judge_rows(rows, scale):
    """Failures of criteria (2)-(4): (criterion, first time, text)."""
    fails = []
    if not rows:
        return fails
    first = rows[0]
    i0 = [first.get(k) or 0.0 for k in ("Ix", "Iy", "Iz")]
    tol = TOL_I * max(norm(i0), scale)
    # the kernel energy where the program sums it, else the particle form
    ek = "energy_sigma" if math.isfinite(first.get("energy_sigma") or math.nan) else "energy"
    a0, e0, emin = first.get("max_alpha"), first.get(ek), None
    done = set()
    for r in rows:
        t = r["time"]
        ii = [r.get(k) for k in ("Ix", "Iy", "Iz")]
        if "impulse" not in done and None not in ii:
            dev = norm(add(ii, mul(-1.0, i0)))
            if not dev <= tol:
                done.add("impulse")
                fails.append(("impulse", t, f"|I-I0|/I_ref {dev / max(norm(i0), scale):.2g} at t={t:.4g}"))
        a = r.get("max_alpha")
        if "alpha" not in done and a0 and a is not None and not a <= TOL_ALPHA * a0:
            done.add("alpha")
            peak = max((x.get("max_alpha") or 0.0) for x in rows) / a0
            fails.append(("alpha", t, f"max|alpha| > 3x at t={t:.4g} (peak x{peak:.1f})"))
        e = r.get(ek)
        if e is not None and math.isfinite(e) and e0:
            if "energy" not in done and emin is not None and e - emin > TOL_E * abs(e0):
                done.add("energy")
                fails.append(("energy", t, f"energy rose {(e - emin) / abs(e0):.2g} E0 above its minimum at t={t:.4g}"))
            emin = e if emin is None else min(emin, e)
    return fails


def mps_running():
    """Whether an MPS control daemon is up: its pipe directory holds the control pipe."""
    return (Path(os.environ.get("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")) / "control").exists()


def run_one(job, args):
    """Runs one scene; returns its result record."""
    rec, scene, csv_path = job["rec"], job["scene"], job["csv"]
    csv_path.unlink(missing_ok=True)
    t0 = time.monotonic()
    p = subprocess.Popen(job["cmd"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    timed_out = False
    try:
        _, err = p.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        p.send_signal(signal.SIGTERM)              # the program finishes its step and finalizes the CSV
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
    wall = time.monotonic() - t0
    last = next((ln for ln in reversed(err.splitlines()) if ln.strip()), "")
    rows = read_diag(csv_path)
    t_last = rows[-1]["time"] if rows else 0.0
    fails = judge_rows(rows, rec["impulse_scale"])
    reached = rows and t_last >= args.t_end * (1 - 1e-9) - 1e-12
    rc = p.returncode
    if timed_out:
        outcome, run_fail = "timeout", f"timeout after {args.timeout:g} s at t={t_last:.4g}"
    elif rc < 0:
        outcome, run_fail = f"crash (signal {-rc})", f"crash (signal {-rc}) at t={t_last:.4g}"
    elif rc == 3:
        outcome, run_fail = "blow-up", f"blow-up at t={t_last:.4g}: {last}"
    elif rc != 0:
        outcome, run_fail = f"error (exit {rc})", f"exit {rc}: {last}"
    elif not reached:
        outcome, run_fail = "breakdown", f"stopped at t={t_last:.4g} before T"
    else:
        outcome, run_fail = ("fail" if fails else "pass"), None
    if run_fail:
        fails.append(("run", t_last, run_fail))
    fails.sort(key=lambda f: f[1])
    n_elem = [r.get("n_elem") for r in (rows[0], rows[-1])] if rows else [None, None]
    return {"scene": scene.name, "summary": summary_of(rec), "result": outcome, "exit": rc,
            "first_failure": fails[0][2] if fails else "", "failures": [{"criterion": c, "time": t, "text": s} for c, t, s in fails],
            "t_last": t_last, "n_elem_start": n_elem[0], "n_elem_end": n_elem[1], "wall_s": round(wall, 2),
            "stderr_last": last, "command": " ".join(job["cmd"]), "draw": rec}


def write_summary(results, args, out, dist_line):
    n_pass = sum(r["result"] == "pass" for r in results)
    lines = [f"# Stability sweep: seed {args.seed}, {len(results)} scenes, t = {args.t_end:g}, backend {args.backend}"
             f", resolution {args.resolution}" + (f", with {args.args}" if args.args else ""), "",
             f"Pass rate: {n_pass}/{len(results)} ({100.0 * n_pass / max(1, len(results)):.1f} %)", "",
             f"Distribution and criteria: scripts/sweep.py's docstring ({dist_line}).", "",
             "| scene | configuration | result | first failure | elements start/end | wall s |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        el = "/".join("-" if x is None else str(int(x)) for x in (r["n_elem_start"], r["n_elem_end"]))
        ff = r["first_failure"].replace("|", "\\|")[:120]
        lines.append(f"| {r['scene']} | {r['summary']} | {r['result']} | {ff} | {el} | {r['wall_s']:.1f} |")
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    print(text)


def main():
    ap = argparse.ArgumentParser(description="Stability sweep over random ring scenes (see the module docstring).")
    ap.add_argument("--n", type=int, default=200, help="scenes (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--t-end", type=float, default=None, help="simulated time a run reaches (default 10; 2 with --reduced)")
    ap.add_argument("--backend", choices=("cpu", "cuda"), default="cuda")
    ap.add_argument("--exe", default=None, help="vortexfmm (default: build/vortexfmm, else build-cpu/vortexfmm)")
    ap.add_argument("--out", default=None, help="output folder (default build/sweep)")
    ap.add_argument("--jobs", type=int, default=1, help="runs at once")
    ap.add_argument("--timeout", type=float, default=3600.0, help="wall seconds a run may take (default 3600)")
    ap.add_argument("--resolution", choices=("coarse", "normal", "fine"), default=None,
                    help="the scenes' key resolution (default normal; coarse with --reduced)")
    ap.add_argument("--max-rings", type=int, choices=(1, 2, 3, 4), default=None,
                    help="rings a scene draws at most (default 4; 2 with --reduced)")
    ap.add_argument("--reduced", action="store_true",
                    help="resolution coarse, --t-end 2 and --max-rings 2 by default (a CPU sweep of small scenes)")
    ap.add_argument("--dry-run", action="store_true", help="write the scenes and commands.sh only")
    ap.add_argument("--only", default=None, help="comma-separated scene indices to run (of the --n drawn)")
    ap.add_argument("--args", default="", help="options added to every run (an override, e.g. \"--relax 0\")")
    ap.add_argument("--min-pass", type=int, default=0,
                    help="exit 1 when fewer scenes pass (a regression check: the pass count it measured)")
    args = ap.parse_args()
    if args.t_end is None:
        args.t_end = 2.0 if args.reduced else 10.0
    if args.resolution is None:
        args.resolution = "coarse" if args.reduced else "normal"
    if args.max_rings is None:
        args.max_rings = 2 if args.reduced else 4
    root = Path(__file__).resolve().parent.parent
    exe = args.exe or next((str(p) for p in (root / "build/vortexfmm", root / "build-cpu/vortexfmm") if p.exists()),
                           str(root / "build/vortexfmm"))
    out = Path(args.out) if args.out else root / "build/sweep"
    out.mkdir(parents=True, exist_ok=True)
    jobs = []
    only = None if args.only is None else {int(x) for x in args.only.split(",") if x.strip()}
    for i in range(args.n):
        if only is not None and i not in only:
            continue
        text, rec = draw_scene(args.seed, i, args.resolution, args.max_rings)
        scene = out / f"s{i:03d}.scene"
        scene.write_text(text)
        csv_path = out / f"s{i:03d}.csv"
        cmd = [exe, "--headless", "--scene", str(scene), "--backend", args.backend, "--t-end", f"{args.t_end:g}",
               "--diag", str(csv_path), "--diag-time", f"{args.t_end / ROWS:g}", "--tracers", "0", "--quiet"] + shlex.split(args.args)
        jobs.append({"rec": rec, "scene": scene, "csv": csv_path, "cmd": cmd})
    (out / "commands.sh").write_text("#!/bin/sh\n" + "".join(" ".join(j["cmd"]) + "\n" for j in jobs))
    dist_line = f"1-{args.max_rings} rings, R 0.1-0.4, a/R 0.02-0.2, |Gamma| 0.5-2, six configurations, waves amp <= 0.1 R m 2-8, Re 200-5000 or inviscid"
    if args.dry_run:
        for j in jobs:
            print(f"{j['scene'].name}: {summary_of(j['rec'])}")
        print(f"{len(jobs)} scenes and {out / 'commands.sh'} written")
        return 0
    if not os.access(exe, os.X_OK):
        sys.exit(f"sweep: {exe} is not an executable (--exe)")
    if args.backend == "cuda" and args.jobs > 1 and not mps_running():
        print(f"sweep: {args.jobs} runs at once share the GPU without MPS, which time-slices their contexts: wall times "
              "and the --timeout limit then measure the sharing (start it with `nvidia-cuda-mps-control -d`)", file=sys.stderr)
    results = [None] * len(jobs)
    with open(out / "results.jsonl", "w") as jl, cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = {pool.submit(run_one, j, args): k for k, j in enumerate(jobs)}
        for fut in cf.as_completed(futs):
            r = results[futs[fut]] = fut.result()
            jl.write(json.dumps(r) + "\n")
            jl.flush()
            print(f"{r['scene']}: {r['result']} {r['first_failure']} ({r['wall_s']:.1f} s)", file=sys.stderr)
    write_summary(results, args, out, dist_line)
    n_pass = sum(r["result"] == "pass" for r in results)
    if n_pass < args.min_pass:
        print(f"sweep: {n_pass} of {len(results)} scenes pass, fewer than --min-pass {args.min_pass}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
