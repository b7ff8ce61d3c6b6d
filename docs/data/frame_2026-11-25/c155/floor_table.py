"""c155's floor.jsonl: per (dist, N) the median total of each forced level and of the automatic level
under each --min-leaves (its level in parentheses), and each one's ratio to the best forced level."""
import json, statistics, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "floor.jsonl"):
    if line.startswith("{"):
        d = json.loads(line); rows[(d["dist"], d["n"], d["tag"])].append((d["t_total"], d["levels"]))
keys = sorted({(k[0], k[1]) for k in rows}, key=lambda x: (x[0], x[1]))
tags = ["min-1", "min16", "min33", "min66", "min0"]
print("| dist | N | best forced ms (level) | " + " | ".join(t.replace("min0", "min 132 (default)").replace("min", "min ") for t in tags) + " |")
print("|---|---|---|" + "---|" * len(tags))
for dist, n in keys:
    forced = {v[0][1]: statistics.median(t for t, _ in v) for (d2, n2, tag), v in rows.items() if d2 == dist and n2 == n and tag.startswith("L")}
    bl = min(forced, key=forced.get); b = forced[bl]
    cells = []
    for t in tags:
        v = rows[(dist, n, t)]; m = statistics.median(x for x, _ in v)
        cells.append(f"{m:.3f} (L{v[0][1]}) {m / b:.2f}")
    print(f"| {dist} | 2^{n.bit_length() - 1} | {b:.3f} (L{bl}) | " + " | ".join(cells) + " |")
