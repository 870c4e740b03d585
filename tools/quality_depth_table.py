#!/usr/bin/env python3
# The tables of docs/quality.md's "Depth users have" from `satlab quality --depth ... --refine ... --json F`:
# per case and source, a mode's whole / band PSNR under each refiner and the gap to the exact depth
# unrefined (same case and mode); the worst and mean gaps; the cases where a refiner scores below none.
#   tools/quality_depth_table.py F [MODE]   (default spread)
import json, sys
q = json.load(open(sys.argv[1]))
mode = sys.argv[2] if len(sys.argv) > 2 else "spread"
rows = [r for r in q["rows"] if r["mode"] == mode and not r["highlights"]]
refs = []
for r in rows:
    if r["refine"] not in refs:
        refs.append(r["refine"])
srcs = []
for r in rows:
    if r["depth"] not in srcs:
        srcs.append(r["depth"])
by = {(r["case"], r["depth"], r["refine"]): r for r in rows}
cases = []
for r in rows:
    if r["case"] not in cases:
        cases.append(r["case"])
def p(s):
    return s["psnr"] if isinstance(s["psnr"], (int, float)) else float("inf")
print(f"mode {mode}; cells: whole/band PSNR dB (gap to exact+none in brackets); * best refiner of the row")
print("| case | source | " + " | ".join(refs) + " |")
print("|---|---|" + "---|" * len(refs))
gaps = {}
for c in cases:
    ex = by.get((c, "exact", "none"))
    for s in srcs:
        cells, best = [], None
        vals = {f: by[(c, s, f)] for f in refs if (c, s, f) in by}
        if vals:
            best = max(vals, key=lambda f: p(vals[f]["whole"]) + p(vals[f]["band"]))
        for f in refs:
            r = vals.get(f)
            if not r:
                cells.append("-")
                continue
            w, b = p(r["whole"]), p(r["band"])
            g = f" ({w - p(ex['whole']):+.1f}/{b - p(ex['band']):+.1f})" if ex and s != "exact" else ""
            cells.append(f"{w:.2f}/{b:.2f}{g}" + ("*" if f == best else ""))
            if ex:
                gaps.setdefault((s, f), []).append((w - p(ex["whole"]), b - p(ex["band"])))
        print(f"| {c} | {s} | " + " | ".join(cells) + " |")
print()
print("Gap to exact+none over the cases: worst whole / worst band / mean whole / mean band (dB)")
print("| source | " + " | ".join(refs) + " |")
print("|---|" + "---|" * len(refs))
for s in srcs:
    cells = []
    for f in refs:
        g = gaps.get((s, f))
        if not g:
            cells.append("-")
            continue
        cells.append(f"{min(x for x, _ in g):+.1f} / {min(y for _, y in g):+.1f} / "
                     f"{sum(x for x, _ in g) / len(g):+.1f} / {sum(y for _, y in g) / len(g):+.1f}")
    print(f"| {s} | " + " | ".join(cells) + " |")
# Refinement never lowers the score: rows where a refiner is below none.
print()
print("Refiner below none (whole or band), count of cases out of", len(cases))
print("| source | " + " | ".join(f for f in refs if f != "none") + " |")
print("|---|" + "---|" * (len(refs) - 1))
for s in srcs:
    cells = []
    for f in refs:
        if f == "none":
            continue
        n = sum(1 for c in cases if (c, s, f) in by and (c, s, "none") in by and
                (p(by[(c, s, f)]["whole"]) < p(by[(c, s, "none")]["whole"]) or
                 p(by[(c, s, f)]["band"]) < p(by[(c, s, "none")]["band"])))
        cells.append(str(n))
    print(f"| {s} | " + " | ".join(cells) + " |")
