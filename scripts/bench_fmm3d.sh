#!/usr/bin/env bash
# bench_fmm3d.sh — vortexfmm's CPU engine against FMM3D's Laplace FMM used as a Biot–Savart solver
# (scripts/bench_fmm3d.c), at matched error. FMM3D is not a dependency of vortexfmm: build it yourself
# (github.com/flatironinstitute/FMM3D, `make lib FAST_KER=ON OMP=ON`) and give its folder.
#
#   OMP_NUM_THREADS=2 scripts/bench_fmm3d.sh FMM3D_DIR [BENCH [OUT_DIR]]
#
# BENCH is build/vortexfmm-bench, OUT_DIR build/bench-fmm3d (ignored by git). For each point set
# (2^16 and 2^18 points, uniform and rings, the same points and strengths for both codes through
# `vortexfmm-bench --dump`) it times vortexfmm in double at orders 2 to 20 and FMM3D at tolerances
# 1e-3 to 1e-10, measures both codes' velocity and gradient errors against the direct sum at 1000
# targets, and prints for each FMM3D tolerance the cheapest order whose velocity and gradient
# errors are both at most FMM3D's, and the ratio of their times.
set -euo pipefail
fmm3d=${1:?usage: scripts/bench_fmm3d.sh FMM3D_DIR [BENCH [OUT_DIR]]}
bench=${2:-build/vortexfmm-bench}
out=${3:-build/bench-fmm3d}
lib=$fmm3d/lib-static/libfmm3d.a
[ -f "$lib" ] || { echo "bench_fmm3d.sh: no $lib (build FMM3D with make lib FAST_KER=ON OMP=ON)" >&2; exit 2; }
[ -x "$bench" ] || { echo "bench_fmm3d.sh: no $bench (build vortexfmm first)" >&2; exit 2; }
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
gcc -O2 -fopenmp -I "$here/../fmm" -o "$out/bench_fmm3d" "$here/bench_fmm3d.c" "$lib" -lgfortran -lstdc++ -lm
echo "# threads ${OMP_NUM_THREADS:-all}; $(date -u +%Y-%m-%d); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for n in 65536 262144; do
  for dist in uniform rings; do
    rows=$out/$dist-$n.txt
    : > "$rows"
    for p in $(seq 2 20); do
      json=$("$bench" --backend cpu --precision double --n $n --dist $dist --order $p --repeat 5 --json --quiet \
             --dump "$out/dump.csv")
      ms=$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["t_total"])')
      err=$("$out/bench_fmm3d" "$out/dump.csv" 0 1 1000)
      echo "vx $p $ms $(echo "$err" | cut -d' ' -f6-7)" >> "$rows"
    done
    for e in 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8 1e-9 1e-10; do
      r=$("$out/bench_fmm3d" "$out/dump.csv" $e 3 1000)
      echo "fmm3d $e $(echo "$r" | cut -d' ' -f3-5)" >> "$rows"
    done
    python3 - "$rows" "$n" "$dist" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
vx = [(int(r[1]), float(r[2]), float(r[3]), float(r[4])) for r in rows if r[0] == "vx"]
print(f"\n{sys.argv[3]}, {sys.argv[2]} points: FMM3D tolerance | FMM3D ms (err_vel, err_grad) | vortexfmm p, ms (err_vel, err_grad) | ratio")
for r in rows:
    if r[0] != "fmm3d": continue
    ms, ev, eg = float(r[2]), float(r[3]), float(r[4])
    ok = [v for v in vx if v[2] <= ev and v[3] <= eg]
    if not ok:
        print(f"{r[1]} | {ms:.1f} ({ev:.1e}, {eg:.1e}) | no order to 20 matches both | -")
        continue
    p, vms, vev, veg = min(ok, key=lambda v: v[1])
    print(f"{r[1]} | {ms:.1f} ({ev:.1e}, {eg:.1e}) | {p}, {vms:.1f} ({vev:.1e}, {veg:.1e}) | {ms / vms:.2f}")
EOF
  done
done
rm -f "$out/dump.csv"
