import json, subprocess, sys
B = "/work/main/build/vortexfmm-bench"
out = open("/tmp/sweep/cpu_levels.jsonl", "a")
def run(n, d, extra, rep):
    cmd = [B, "--backend", "cpu", "--n", str(n), "--dist", d, "--precision", "float", "--order", "8", "--repeat", str(rep), "--json", "--quiet"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    line = [l for l in r.stdout.splitlines() if l.startswith("{")][-1]
    j = json.loads(line); j["args"] = " ".join(extra); out.write(json.dumps(j) + "\n"); out.flush()
    return j
for n in [4096, 16384, 65536, 262144, 1048576]:
    rep = 5 if n <= 65536 else (3 if n <= 262144 else 1)
    for d in ["uniform", "rings"]:
        lv = {}
        for lf in [64, 128, 256]:
            j = run(n, d, ["--leaf", str(lf)], rep); lv[lf] = j["levels"]
        ls = sorted(set(lv.values()))
        for L in range(max(2, ls[0] - 1), ls[-1] + 2):
            run(n, d, ["--levels", str(L)], rep)
        print(n, d, "done", flush=True)
