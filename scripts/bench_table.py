#!/usr/bin/env python3
"""bench_table.py — turn vortexfmm-bench --json lines (scripts/bench_gpu.sh, bench_cpu.sh) into markdown tables.

Usage: scripts/bench_table.py FILE.jsonl [--by-order]
Rows with err_vel come from the FMM runs; rows with t_direct but no err_vel are the separate
direct-sum timings, merged into the matching (dist, precision, n) row."""
import json
import sys


def fmt(v, f="{:.2f}"):
    return "" if v is None or v < 0 else f.format(v)


def main():
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    direct = {}
    for r in rows:
        if "t_direct" in r:
            direct.setdefault((r["dist"], r["precision"], r["n"], r["order"]), r["t_direct"])
    fmm = [r for r in rows if "err_vel" in r]
    keys = sorted({(r["dist"], r["precision"]) for r in fmm})
    for dist, prec in keys:
        sel = [r for r in fmm if r["dist"] == dist and r["precision"] == prec]
        sel.sort(key=lambda r: (r["order"], r["n"]) if "--by-order" in sys.argv else (r["n"], r["order"]))
        print(f"\n**{dist}, {prec}** ({sel[0]['device']})\n")
        print("| N | p | L | tree | P2M | M2M | M2L | L2L | L2P | P2P | total | ns/target | direct | FMM speed-up | err_vel | err_grad | p99 |")
        print("|" + " --- |" * 17)
        for r in sel:
            d = direct.get((dist, prec, r["n"], r["order"]))
            sp = d / r["t_total"] if d else None
            print(f"| 2^{r['n'].bit_length() - 1} | {r['order']} | {r['levels']} | {fmt(r['t_tree'])} | {fmt(r['t_p2m'])} | "
                  f"{fmt(r['t_m2m'])} | {fmt(r['t_m2l'])} | {fmt(r['t_l2l'])} | {fmt(r['t_l2p'])} | {fmt(r['t_p2p'])} | "
                  f"**{fmt(r['t_total'])}** | {fmt(1e6 * r['t_total'] / r['n'], '{:.1f}')} | {fmt(d, '{:.1f}') if d else ''} | "
                  f"{fmt(sp, '{:.1f}x') if sp else ''} | {r['err_vel']:.1e} | "
                  f"{'' if r.get('err_grad') is None else format(r['err_grad'], '.1e')} | {r['err_vel_p99']:.1e} |")


if __name__ == "__main__":
    main()
