"""Issue 12's level table from c154's levels.jsonl: per (dist, N) the automatic level's median total
against the best forced level (medians over the rounds), and the ratio."""
import json, statistics, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "levels.jsonl"):
    line = line.strip()
    if not line.startswith("{"): continue
    d = json.loads(line)
    rows[(d["dist"], d["n"], d["tag"])].append((d["t_total"], d["levels"], d["err_vel"]))
keys = sorted({(k[0], k[1]) for k in rows}, key=lambda x: (x[1], x[0]))
print("| N | dist | automatic: ms (level) | best forced: ms (level) | ratio | the levels forced |")
print("|---|---|---|---|---|---|")
for dist, n in keys:
    a = rows[(dist, n, "auto")]
    at = statistics.median(t for t, _, _ in a); al = a[0][1]
    forced = {}
    for (d2, n2, tag), v in rows.items():
        if d2 == dist and n2 == n and tag.startswith("L"):
            forced[v[0][1]] = statistics.median(t for t, _, _ in v)
    bl = min(forced, key=forced.get)
    e = n.bit_length() - 1
    lv = ", ".join(f"L{l} {forced[l]:.3f}" for l in sorted(forced))
    print(f"| 2^{e} | {dist} | {at:.3f} ({al}) | {forced[bl]:.3f} ({bl}) | {at / forced[bl]:.3f} | {lv} |")
