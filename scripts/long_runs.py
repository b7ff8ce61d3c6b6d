#!/usr/bin/python3
"""scripts/long_runs.py — long batch runs of the scenes, and one markdown table of what each run
kept (invariants, strengths, element count) and where it failed. A benchmark: it prints numbers and
asserts nothing.

  /usr/bin/python3 scripts/long_runs.py [SCENE ...] [--t-end 10] [--backend cpu|cuda] [--tracers 0]
      [--reduced] [--scale="--remesh-h 0.04 ..."] [--jobs 1] [--out build/long_runs] [--exe build/vortexfmm]
      [--dry-run]
  /usr/bin/python3 scripts/long_runs.py --from-dir DIR      only the table, from runs made elsewhere

SCENE is a name of assets/ or a .scene path (default: every assets/*.scene). --scale passes its
words to vortexfmm (e.g. a coarser lattice, --energy-max 0 to skip the energy). Each run writes
OUT/SCENE__BACKEND__PRECISION.csv (the diagnostics) and .log (the program's stderr, then a last
line `long_runs: wall W s, exit E`); --from-dir reads such pairs, e.g. copied back from a GPU machine.

--reduced runs, instead of assets/NAME.scene, OUT/reduced/NAME.scene: the shipped file with the
key overrides of REDUCED below (fewer stations, a coarser lattice, a matching σ, a longer dt; why,
scene by scene, in its comments), sized for the CPU backend to reach t = 10 in minutes; its files
are OUT/NAME-reduced__*, its row's scene "NAME (reduced)". --dry-run runs nothing: it writes the
scenes and OUT/commands.txt (one run a line: the stem, a tab, the command), which
scripts/cpu_long_runs.sh runs on a machine without python.

The columns: elements at the start and end; the time reached, or where the run blew up or broke down (exit 3);
max|α| at its largest over its start; max of max_gradu·dt (the Lagrangian CFL number); the energy's
relative drift per time unit, (E_last − E_0)/|E_0|/(t_last − t_0) over the rows where it was
computed; max|I − I0|/|I0| of the linear impulse (where |I0| ≈ 0, as head-on, relative to the
rings' Σ πΓR² instead, marked ‡); max|W − W0|/Σ|α|_0 of the total vorticity; wall time.
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


# --reduced: each shipped scene at a size a CPU takes to t = 10 in minutes to half an hour on one
# thread (docs/VALIDATION.md, "Long runs of every scene"), generated from assets/NAME.scene by these
# key overrides: global keys, then under "[ring]" the keys set in every ring (and tracers = 0 in
# every ring). Everything else stays the scene's: the rings (radii, circulations, centres, axes,
# core a and profile but where said), kernel, stretching, integrator, precision, relaxation,
# substeps (lcfl), viscosity, conserve and the lattice's coarsening. The CPU's cost is the near
# field, close to N² pairs per step while σ caps the octree at 2 levels (~60 ns a pair on one
# core), so the element count N over the run is what these choose.
REDUCED = {
    # No remeshing, so the stations are the resolution: 64 instead of 128 (1216 elements; σ is
    # 2.0 station spacings along the ring instead of 4.1), the cross-section (19 per station), σ,
    # the core and dt as shipped.
    "single_ring": {"[ring]": {"n_around": "64"}},
    # The remeshing lattice sets N: h = 0.04 instead of 0.02 with σ = 1.5 h as shipped, the core
    # a = 0.03 kept; the smoothed core is then thicker, a_eff = √(a² + 2σ²) = 0.090 against 0.052.
    # dt = 0.006: the thicker core turns 3x slower (a_eff² 3x); remeshing every 8 steps keeps the
    # interval in time (0.048 against 0.05). The stations stay: the rings are remeshed before the
    # first step (the lattice sets N from then on).
    # Order 10 and a drop threshold of 5e-3: at p = 8 the FMM's error seeds a tilt of the coarse
    # merged ring (6.8e-3 of the impulse lost sideways by t = 10); at p = 10 or 12 with a threshold
    # of 3e-3 ... 5e-3 the impulse stays within 5.5e-4 ... 7.9e-4 (1.4e-3 at 2e-3 and at 1e-2), and
    # p = 10 with 5e-3 ends with about 3 900 elements, a few minutes on one core.
    "merger": {"sigma": "0.06", "remesh_h": "0.04", "remesh_drop": "5e-3", "dt": "0.006", "remesh_every": "8",
               "order": "10"},
    # The coarse resolution's numerics (docs/MATH.md §16): h 0.049 and σ 0.073 instead of 0.02 and
    # 0.03, the core a = 0.03 and ν = 5e-3 (Re = 200) kept, dt 0.0064, remeshing every 12 steps, the
    # scene's fixed lattice. The smoothed core starts thicker, which the viscous spreading a² + 4νt
    # reaches by t ≈ 0.3 anyway. The spreading cores hold 12 152 elements at most (1 552 at the start).
    "headon": {"resolution": "coarse"},
    # σ = h = 0.05 (between the full scene's lattices after t ≈ 0.6 and 4.7, 0.033 and 0.067), a = 0.025
    # kept, dt = 0.01, remeshing every 2 steps, drop 1e-4, and ν = 2e-2 instead of 5e-3: Re = Γ/ν = 50
    # instead of 200. The lattice a CPU carries to t = 10 does not resolve the collision at Re = 200:
    # its impulse moves 5.2e-2 (h = 1/28: 2.6e-2), at Re = 100 1.0e-3, at Re = 50 2.1e-4. So the
    # reduced row is the same collision at a Reynolds number its lattice resolves, on the scene's
    # coarsening lattice, reprojection and correction.
    "oblique": {"sigma": "0.05", "remesh_h": "0", "dt": "0.01", "remesh_every": "2", "remesh_drop": "1e-4",
                "viscosity": "2e-2"},
    # The thin filaments as shipped (σ = 0.005, a/R = 0.027, dt = 0.0002, relaxation 0.01 a step) with
    # 1024 stations a ring instead of 16384: σ is 2.7 station spacings along the ring instead of 43,
    # 2048 elements, 25 ms a step on one thread (50 000 steps, about 21 minutes). Thinner rings
    # cannot be reduced in steps: the step is set by σ and a passage by R, so a/R fixes the steps a
    # passage (about 450).
    "leapfrog_big": {"[ring]": {"n_around": "1024"}},
    # Already CPU-sized (504 elements, about 12 ms a step on one thread): run as shipped.
    "leapfrog": {},
}


def scene_path(name):
    return name if name.endswith(".scene") and os.path.exists(name) else os.path.join(ROOT, "assets", name + ".scene")


def write_reduced(name, out):
    """OUT/reduced/NAME.scene: assets/NAME.scene with REDUCED[NAME]'s keys (and tracers = 0) in place
    of the file's, a key the file lacks added to its section. Returns the path."""
    over = dict(REDUCED[name], name=name + "_reduced")
    ring = dict(over.pop("[ring]", {}), tracers="0")
    sections = [[]]                       # the global lines, then one list of lines per [ring]
    with open(scene_path(name)) as f:
        for line in f:
            if line.split("#")[0].strip() == "[ring]":
                sections.append([])
            sections[-1].append(line.rstrip("\n"))
    lines = ["# generated by scripts/long_runs.py --reduced from assets/%s.scene (REDUCED there says why);" % name,
             "# the comments below are the shipped scene's and may name its values, not these"]
    for i, sec in enumerate(sections):
        cur = dict(over if i == 0 else ring)
        for line in sec:
            m = re.match(r"\s*(\w+)\s*=\s*([^#]*?)\s*(#.*)?$", line)
            if m and m.group(1) in cur:
                line = "%s = %s    # reduced (shipped: %s)" % (m.group(1), cur.pop(m.group(1)), m.group(2))
            lines.append(line)
        lines += ["%s = %s    # reduced (added)" % kv for kv in cur.items()]
    path = os.path.join(out, "reduced", name + ".scene")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


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


def command(scene, args):
    """The run of one scene: (stem, argv). With --reduced the scene is first written to
    OUT/reduced/NAME.scene and the stem is OUT/NAME-reduced__BACKEND__PRECISION."""
    path = write_reduced(scene, args.out) if args.reduced else scene_path(scene)
    name = os.path.basename(path)[: -len(".scene")] + ("-reduced" if args.reduced else "")
    stem = os.path.join(args.out, "%s__%s__%s" % (name, args.backend, scene_precision(path, args.scale)))
    cmd = [args.exe, "--headless", "--scene", path, "--backend", args.backend, "--tracers", str(args.tracers),
           "--t-end", "%g" % args.t_end, "--diag", stem + ".csv", "--quiet"]
    return stem, cmd + (["--diag-every", str(args.diag_every)] if args.diag_every else []) + args.scale


def run_one(stem, cmd):
    """Run one command; its CSV goes where cmd says, the log to STEM.log. Returns the stem."""
    t0 = time.time()
    with open(stem + ".log", "w") as log:
        log.write("$ %s\n" % " ".join(shlex.quote(c) for c in cmd))
        log.flush()
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
        log.write("long_runs: wall %.2f s, exit %d\n" % (time.time() - t0, rc))
    print("long_runs: %s: exit %d, %.1f s" % (os.path.basename(stem), rc, time.time() - t0), file=sys.stderr)
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
    csvs = [stem + ".csv"] if os.path.exists(stem + ".csv") else sorted(glob.glob(stem + ".csv.tmp-*"))
    d = read_rows(csvs[-1]) if csvs else []      # .tmp-*: a run killed before it could rename its CSV
    blew = re.search(r"(blew up|broke down) at step (\d+) \(t=([^)]+)\)", log)
    wall = re.search(r"long_runs: wall ([\d.]+) s", log) or re.search(r"done: \d+ steps in ([\d.]+) s", log)
    failed = re.search(r"long_runs: wall [\d.]+ s, exit ([1-9]\d*)", log)
    if blew:
        reached = "%s at t = %s (step %s)" % (blew.group(1), blew.group(3), blew.group(2))
    elif failed:
        reached = "failed (exit %s)" % failed.group(1)
    else:
        reached = "%g" % d[-1]["time"] if d else "–"
    if scene.endswith("-reduced"):
        scene = scene[: -len("-reduced")] + " (reduced)"
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
    ring_scale = 0.5 * sum(radii) / len(radii) * sum_alpha if radii else math.nan   # = Σ πΓR² over the rings
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
              "= Σ πΓR² over the rings (the sweep's scale)")


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("scenes", nargs="*", help="scene names or .scene paths (default: every assets/*.scene)")
    ap.add_argument("--t-end", type=float, default=10.0)
    ap.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--tracers", type=int, default=0)
    ap.add_argument("--diag-every", type=int, default=0, help="default: the scene's")
    ap.add_argument("--scale", default="", help='further vortexfmm arguments, e.g. --scale="--remesh-h 0.04"')
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "long_runs"),
                    help="where the runs' CSVs, logs and reduced scenes go (default: build/long_runs, ignored by git)")
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "vortexfmm"))
    ap.add_argument("--from-dir", help="only build the table from DIR/*__*__*.csv and .log")
    ap.add_argument("--reduced", action="store_true",
                    help="run each scene at reduced size (REDUCED in this script), written to OUT/reduced/")
    ap.add_argument("--dry-run", action="store_true",
                    help="run nothing: write the scenes (with --reduced) and OUT/commands.txt, one run a line: "
                         "STEM, a tab, the command (for a machine without python; scripts/cpu_long_runs.sh)")
    a = ap.parse_args()
    if a.from_dir:
        stems = sorted({p[:-4] for p in glob.glob(os.path.join(a.from_dir, "*__*__*.csv")) +
                        glob.glob(os.path.join(a.from_dir, "*__*__*.log"))})
        if not stems:
            sys.exit("long_runs.py: no SCENE__BACKEND__PRECISION.csv or .log in %s" % a.from_dir)
        table(stems)
        return
    if not a.dry_run and not os.access(a.exe, os.X_OK):
        sys.exit("long_runs.py: %s not found; build first (scripts/setup)" % a.exe)
    a.scale = shlex.split(a.scale)
    scenes = a.scenes or sorted(os.path.basename(p)[:-6] for p in glob.glob(os.path.join(ROOT, "assets", "*.scene")))
    missing = [s for s in scenes if not os.path.exists(scene_path(s))]
    if missing:
        sys.exit("long_runs.py: no such scene: %s" % ", ".join(missing))
    if a.reduced and any(s not in REDUCED for s in scenes):
        sys.exit("long_runs.py: --reduced knows only %s" % ", ".join(sorted(REDUCED)))
    os.makedirs(a.out, exist_ok=True)
    runs = [command(s, a) for s in scenes]
    if a.dry_run:
        with open(os.path.join(a.out, "commands.txt"), "w") as f:
            f.writelines("%s\t%s\n" % (stem, " ".join(shlex.quote(c) for c in cmd)) for stem, cmd in runs)
        print("long_runs: %d runs in %s" % (len(runs), os.path.join(a.out, "commands.txt")), file=sys.stderr)
        return
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        stems = list(pool.map(lambda r: run_one(*r), runs))
    table(stems)


if __name__ == "__main__":
    main()
