# Saffman inviscid variants of VALIDATION §14 (run from the repository root):
#   /usr/bin/python3 docs/data/saffman_cpu_2026-11-24/saff_variants.py DIR h15_off,h15_full,h1_full
# (CSVs already in DIR are read, not run again)
import sys, os, math
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', '..', 'scripts'))
import validation as v
exe = os.environ.get('VX_EXE', 'build/vortexfmm')
tmp = sys.argv[1]; os.makedirs(tmp, exist_ok=True)
scene = v.ring_scene(v.SAFF_CORE, v.SAFF_LAYERS, v.SAFF_AROUND, v.SAFF_SIGMA)
a2 = v.SAFF_CORE ** 2 + 2 * v.SAFF_SIGMA ** 2
variants = [(tag, extra) for tag, extra in [
    ("h1_off", []), ("h15_off", ["--remesh-h", "%.6g" % (v.SAFF_SIGMA / 1.5)]),
    ("h15_full", ["--remesh-h", "%.6g" % (v.SAFF_SIGMA / 1.5), "--conserve", "full"]),
    ("h1_full", ["--conserve", "full"])] if tag in sys.argv[2].split(',')]
for tag, extra in variants:
    args = ["--dt", str(v.SAFF_DT), "--t-end", str(v.SAFF_T), "--diag-every", "10", "--remesh-every", "10",
            "--relax", "0", "--energy-max", "0", "--viscosity", "0"] + extra
    path = os.path.join(tmp, tag + ".csv")
    d = v.read_csv(path) if os.path.exists(path) else v.run(exe, scene, args, tmp, tag)
    tm, um, us = v.saffman_speeds(d, a2, 0.0)
    err = [x / y - 1 for x, y in zip(um, us)]
    print(tag, "elements %d -> %d" % (d[0]["n_elem"], d[-1]["n_elem"]), "sum|a| %.3f" % (d[-1]["sum_abs_alpha"] / d[0]["sum_abs_alpha"]),
          "max dIz %.1e" % max(abs(r["Iz"] / d[0]["Iz"] - 1) for r in d), "mean %+.2f%%" % (100 * (sum(um) / sum(us) - 1)),
          "largest %+.2f%%" % (100 * max(err, key=abs)), flush=True)
