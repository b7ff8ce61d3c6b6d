#!/usr/bin/python3
"""scripts/long_runs.py — long batch runs of the scenes, and one markdown table of what each run
kept (invariants, strengths, element count) and where it failed. A benchmark: it prints numbers and
asserts nothing.

  /usr/bin/python3 scripts/long_runs.py [SCENE ...] [--t-end 10] [--backend cpu|cuda] [--tracers 0]
      [--scale="--remesh-h 0.04 ..."] [--jobs 1] [--out long_runs] [--exe build/vortexfmm]
  /usr/bin/python3 scripts/long_runs.py --from-dir DIR      only the table, from runs made elsewhere

SCENE is a name of assets/ or a .scene path (default: every assets/*.scene). --scale passes its
words to vortexfmm (e.g. a coarser lattice, --energy-max 0 to skip the energy). Each run writes
OUT/SCENE__BACKEND__PRECISION.csv (the diagnostics) and .log (the program's stderr, then a last
line `long_runs: wall W s, exit E`); --from-dir reads such pairs, e.g. copied back from a GPU machine.

The columns: elements at the start and end; the time reached, or where the run blew up (exit 3);
max|α| at its largest over its start; max of max_gradu·dt (the Lagrangian CFL number); the energy's
relative drift per time unit, (E_last − E_0)/|E_0|/(t_last − t_0) over the rows where it was
computed; max|I − I0|/|I0| of the linear impulse (where |I0| ≈ 0, as head-on, relative to one ring's
πΓR² instead, marked ‡); max|W − W0|/Σ|α|_0 of the total vorticity; wall time.
"""
import argparse
import csv
import glob
import math
import os
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def scene_path(name):
    return name if name.endswith(".scene") and os.path.exists(name) else os.path.join(ROOT, "assets", name + ".scene")


def scene_precision(path, scale):
    """The run's precision: --precision among the passed-through words, else the scene's key."""
    if "--precision" in scale[:-1]:
        return scale[scale.index("--precision") + 1]
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*precision\s*=\s*(\w+)", line.split("#")[0])
            if m:
                return m.group(1)
    return "double"


def run_one(exe, scene, backend, args, out):
    """Run one scene; the CSV and log go to OUT/SCENE__BACKEND__PRECISION.*. Returns the stem."""
    path = scene_path(scene)
    name = os.path.basename(path)[: -len(".scene")]
    stem = os.path.join(out, "%s__%s__%s" % (name, backend, scene_precision(path, args.scale)))
    cmd = [exe, "--headless", "--scene", path, "--backend", backend, "--tracers", str(args.tracers),
           "--t-end", "%g" % args.t_end, "--diag", stem + ".csv", "--quiet"]
    cmd += (["--diag-every", str(args.diag_every)] if args.diag_every else []) + args.scale
    t0 = time.time()
    with open(stem + ".log", "w") as log:
        log.write("$ %s\n" % " ".join(shlex.quote(c) for c in cmd))
        log.flush()
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
        log.write("long_runs: wall %.2f s, exit %d\n" % (time.time() - t0, rc))
    print("long_runs: %s on %s: exit %d, %.1f s" % (name, backend, rc, time.time() - t0), file=sys.stderr)
    return stem


def read_rows(path):
    with open(path) as f:
        return [{k: float(v) if v not in ("", None) else math.nan for k, v in r.items()} for r in csv.DictReader(line for line in f if not line.startswith("#"))]


def vnorm(r, p):
    return math.sqrt(sum(r[p + q] ** 2 for q in "xyz"))


def vdiff(r, s, p):
    return math.sqrt(sum((r[p + q] - s[p + q]) ** 2 for q in "xyz"))


def summarize(stem):
    """One table row (a list of cells) from STEM.csv and STEM.log."""
    scene, backend, precision = os.path.basename(stem).split("__")
    log = open(stem + ".log").read() if os.path.exists(stem + ".log") else ""
    d = read_rows(stem + ".csv") if os.path.exists(stem + ".csv") else []
    blew = re.search(r"blew up at step (\d+) \(t=([^)]+)\)", log)
    wall = re.search(r"long_runs: wall ([\d.]+) s", log) or re.search(r"done: \d+ steps in ([\d.]+) s", log)
    failed = re.search(r"long_runs: wall [\d.]+ s, exit ([1-9]\d*)", log)
    if blew:
        reached = "blew up at t = %s (step %s)" % (blew.group(2), blew.group(1))
    elif failed:
        reached = "failed (exit %s)" % failed.group(1)
    else:
        reached = "%g" % d[-1]["time"] if d else "–"
    cells = [scene, backend, precision]
    if not d:
        return cells + ["–", reached] + ["–"] * 5 + [wall.group(1) + " s" if wall else "–"]
    r0 = d[0]
    n = "%d → %d" % (r0["n_elem"], d[-1]["n_elem"]) if "n_elem" in r0 else "–"
    dt = [r["time"] / r["step"] for r in d if r["step"] > 0]
    lcfl = max((r["max_gradu"] for r in d), default=math.nan) * dt[0] if dt and "max_gradu" in r0 else math.nan
    e = [r for r in d if not math.isnan(r["energy"])]
    drift = ((e[-1]["energy"] - e[0]["energy"]) / abs(e[0]["energy"]) / (e[-1]["time"] - e[0]["time"])
             if len(e) > 1 and e[-1]["time"] > e[0]["time"] else math.nan)
    sum_alpha = r0["sum_abs_alpha"] if "sum_abs_alpha" in r0 else math.nan
    radii = [r0[k] for k in r0 if re.fullmatch(r"ring\d+_R", k)]
    ring_scale = 0.5 * sum(radii) / len(radii) * sum_alpha if radii else math.nan   # = πΓR² for one ring
    i_scale, mark = vnorm(r0, "I"), ""
    if ring_scale > 0 and not i_scale > 0.01 * ring_scale:      # rings of opposite impulse (headon): |I0| ≈ 0
        i_scale, mark = ring_scale, " ‡"
    dI = max(vdiff(r, r0, "I") for r in d) / i_scale
    dW = max(vdiff(r, r0, "W") for r in d) / sum_alpha
    fmt = lambda x: "–" if math.isnan(x) else "%.2e" % x  # noqa: E731
    return cells + [n, reached, "%.2f" % max(r["max_alpha"] / r0["max_alpha"] for r in d),
                    "–" if math.isnan(lcfl) else "%.3f" % lcfl, fmt(drift), fmt(dI) + mark, fmt(dW),
                    wall.group(1) + " s" if wall else "–"]


def table(stems):
    head = ["scene", "backend", "precision", "elements start → end", "t reached", "max|α| / start",
            "max LCFL (dt·max|∇u|)", "energy drift / time unit", "max|I−I0| / |I0|", "max|W−W0| / Σ|α|0",
            "wall"]
    head = [h.replace("|", "\\|") for h in head]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    rows = [summarize(s) for s in stems]
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if any(r[8].endswith("‡") for r in rows):
        print("\n‡ |I0| ≈ 0 (rings of opposite impulse): relative to ½·(mean ring radius)·Σ|α|0, "
              "= πΓR² of one ring")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenes", nargs="*", help="scene names or .scene paths (default: every assets/*.scene)")
    ap.add_argument("--t-end", type=float, default=10.0)
    ap.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--tracers", type=int, default=0)
    ap.add_argument("--diag-every", type=int, default=0, help="default: the scene's")
    ap.add_argument("--scale", default="", help='further vortexfmm arguments, e.g. --scale="--remesh-h 0.04"')
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default="long_runs")
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "vortexfmm"))
    ap.add_argument("--from-dir", help="only build the table from DIR/*__*__*.csv and their .log")
    a = ap.parse_args()
    if a.from_dir:
        stems = sorted(p[:-4] for p in glob.glob(os.path.join(a.from_dir, "*__*__*.csv")))
        if not stems:
            sys.exit("long_runs.py: no SCENE__BACKEND__PRECISION.csv in %s" % a.from_dir)
        table(stems)
        return
    if not os.access(a.exe, os.X_OK):
        sys.exit("long_runs.py: %s not found; build first (scripts/setup)" % a.exe)
    a.scale = shlex.split(a.scale)
    scenes = a.scenes or sorted(os.path.basename(p)[:-6] for p in glob.glob(os.path.join(ROOT, "assets", "*.scene")))
    missing = [s for s in scenes if not os.path.exists(scene_path(s))]
    if missing:
        sys.exit("long_runs.py: no such scene: %s" % ", ".join(missing))
    os.makedirs(a.out, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        stems = list(pool.map(lambda s: run_one(a.exe, s, a.backend, a, a.out), scenes))
    table(stems)


if __name__ == "__main__":
    main()
