"""levels_c170.py DIR — issue 12's level table from c169/c170's levels.txt: per N and distribution,
the medians over the rounds of the leaf-size rule's run, the cost rule's (c170) and each forced
level's, and each rule's ratio to the best forced level.  python3 levels_c170.py c170"""
import collections
import json
import statistics as st
import sys

runs, levels = collections.defaultdict(list), collections.defaultdict(set)
tag = None
for line in open(sys.argv[1] + "/levels.txt"):
    if line.startswith("=="):
        tag = line.split()[1:]
        continue
    j = json.loads(line)
    e, dist, variant = int(tag[0]), tag[1], tag[2]
    variant = "leaf" if variant == "0" else variant  # c169 names the automatic level 0
    runs[(e, dist, variant)].append(j["t_total"])
    levels[(e, dist, variant)].add(j["levels"])
print("| N | dist | leaf-size rule: ms (level) | ratio | cost rule: ms (level) | ratio | best forced: ms (level) | forced levels |")
print("|---|---|---|---|---|---|---|---|")
for e, dist in sorted({(e, d) for (e, d, v) in runs}):
    forced = {int(v): st.median(x) for (ee, dd, v), x in runs.items() if (ee, dd) == (e, dist) and v not in ("leaf", "cost")}
    bl = min(forced, key=forced.get)
    cells = []
    for rule in ("leaf", "cost"):
        if (e, dist, rule) in runs:
            t = st.median(runs[(e, dist, rule)])
            cells += [f"{t:.3f} ({','.join(map(str, sorted(levels[(e, dist, rule)])))})", f"{t / forced[bl]:.3f}"]
        else:
            cells += ["", ""]
    fl = " ".join(f"L{k} {v:.3f}" for k, v in sorted(forced.items()))
    print(f"| 2^{e} | {dist} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} | {forced[bl]:.3f} ({bl}) | {fl} |")
