#!/usr/bin/env bash
# scripts/cpu_long_runs.sh — every shipped scene at reduced size (scripts/long_runs.py's REDUCED)
# on the CPU backend to t = 10, five runs at once on 3 OpenMP threads each: made for a 16-core
# machine (docs/VALIDATION.md, "Long runs of every scene"). A benchmark: it prints numbers and
# asserts nothing.
#
#   bash scripts/cpu_long_runs.sh EXE OUTDIR        from the repository root (e.g. OUTDIR = build/cpu_reduced)
#
# With /usr/bin/python3 it runs scripts/long_runs.py --reduced, which writes the scenes to
# OUTDIR/reduced/, the runs' CSV and log to OUTDIR/, and the table to OUTDIR/table.md.
# Without python (a GPU server may have none) it runs the commands of OUTDIR/commands.txt, written
# beforehand on a machine that has python, from the repository root:
#   /usr/bin/python3 scripts/long_runs.py --reduced --backend cpu --t-end 10 --exe EXE --out OUTDIR --dry-run
# (OUTDIR a relative path, named as here, so that the commands find the scenes from the repository
# root on the other machine; the runs use this script's EXE whatever --exe said);
# the table is then made where python is: long_runs.py --from-dir OUTDIR > OUTDIR/table.md.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: bash scripts/cpu_long_runs.sh EXE OUTDIR   (from the repository root)" >&2
  exit 2
fi
exe=$1 out=$2
[ -x "$exe" ] || { echo "cpu_long_runs.sh: $exe is not an executable" >&2; exit 2; }
# the CPU backend takes its threads from OpenMP (omp_get_max_threads); vortexfmm has no flag for it
export OMP_NUM_THREADS=3
mkdir -p "$out"

if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 scripts/long_runs.py --reduced --backend cpu --t-end 10 --jobs 5 --exe "$exe" --out "$out" \
    > "$out/table.md"
  cat "$out/table.md"
  exit 0
fi

if [ ! -f "$out/commands.txt" ]; then
  echo "cpu_long_runs.sh: no /usr/bin/python3 and no $out/commands.txt; write it first where python is:" >&2
  echo "  /usr/bin/python3 scripts/long_runs.py --reduced --backend cpu --t-end 10 --exe $exe --out $out --dry-run" >&2
  exit 2
fi
# each line: STEM, a tab, the command; the log as long_runs.py writes it (the command first, the
# program's output, then 'long_runs: wall W s, exit E'), so that --from-dir reads it
while IFS=$'\t' read -r stem cmd; do
  (
    start=$SECONDS
    printf '$ %s\n' "$cmd" > "$stem.log"
    rc=0
    eval "set -- $cmd"
    shift                     # the program named when commands.txt was written: EXE runs instead
    "$exe" "$@" >> "$stem.log" 2>&1 || rc=$?
    echo "long_runs: wall $((SECONDS - start)) s, exit $rc" >> "$stem.log"
    echo "cpu_long_runs.sh: $(basename "$stem"): exit $rc, $((SECONDS - start)) s" >&2
  ) &
done < "$out/commands.txt"
wait
echo "cpu_long_runs.sh: done; the table: /usr/bin/python3 scripts/long_runs.py --from-dir $out > $out/table.md" >&2
