# Saffman's inviscid ring at a finer core (VALIDATION §16): sigma = 0.05 against §9/§14's 0.08, the same ring
# (R = 1, Gamma = 1, Gaussian core a = 0.12; 128 stations, 4 annuli), lattice h = sigma/1.5, conserve full,
# relaxation off (s05_h15_full) and 0.3 every step (s05_h15_full_r03), nu = 0; and nu = 1e-3 without relaxation
# (s05_h15_full_nu1e-3),
# RK4 dt = 0.03 to t = 1.2, remeshed every 10 steps, CPU FMM p = 10 (run from the repository root):
#   /usr/bin/python3 docs/data/saffman_cpu_2026-11-24c/saff_fine.py DIR
# (a CSV already in DIR is read, not run again)
import sys, os, math
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', '..', 'scripts'))
import validation as v
exe = os.environ.get('VX_EXE', 'build/vortexfmm')
tmp = sys.argv[1]; os.makedirs(tmp, exist_ok=True)
sigma = 0.05
scene = v.ring_scene(v.SAFF_CORE, 4, 128, sigma)
a2 = v.SAFF_CORE ** 2 + 2 * sigma ** 2
lattice = ["--remesh-h", "%.6g" % (sigma / 1.5), "--conserve", "full"]
for tag, nu, extra in [("s05_h15_full", 0.0, lattice + ["--relax", "0"]), ("s05_h15_full_r03", 0.0, lattice + ["--relax", "0.3"]),
                        ("s05_h15_full_nu1e-3", 1e-3, lattice + ["--relax", "0"])]:
    args = ["--dt", str(v.SAFF_DT), "--t-end", str(v.SAFF_T), "--diag-every", "10", "--remesh-every", "10",
            "--energy-max", "0", "--viscosity", "%g" % nu] + extra
    path = os.path.join(tmp, tag + ".csv")
    d = v.read_csv(path) if os.path.exists(path) else v.run(exe, scene, args, tmp, tag)
    tm, um, us = v.saffman_speeds(d, a2, nu)
    err = [x / y - 1 for x, y in zip(um, us)]
    print(tag, "elements %d -> %d" % (d[0]["n_elem"], d[-1]["n_elem"]), "sum|a| %.3f" % (d[-1]["sum_abs_alpha"] / d[0]["sum_abs_alpha"]),
          "max dIz %.1e" % max(abs(r["Iz"] / d[0]["Iz"] - 1) for r in d), "mean %+.2f%%" % (100 * (sum(um) / sum(us) - 1)),
          "largest %+.2f%%" % (100 * max(err, key=abs)), flush=True)
