#!/usr/bin/python3
"""Plots the recorded H100 benchmarks as the fraction of the copy bandwidth C each variant reaches:
    bench/results/h100-primitives.json -> docs/bench-primitives.png (reductions and scans, int32, by n)
    bench/results/h100-sat.json        -> docs/bench-sat.png (SAT builders by image size, per input type)
Re-runnable whenever the results change. Needs Debian's python3-matplotlib (tools/install-deps.sh):
    /usr/bin/python3 tools/plot_bench.py [--results DIR] [--out DIR]
"""
import argparse
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_bench: {path}: {e}")


def series(rows, key):
    """{variant: [(x, fraction_of_copy), ...]} sorted by x, for rows with a fraction."""
    out = {}
    for r in rows:
        if r.get("fraction_of_copy") is None:
            continue
        out.setdefault(r["variant"], []).append((key(r), r["fraction_of_copy"]))
    return {v: sorted(p) for v, p in out.items()}


def draw(ax, by_variant, title, xlabel, xticks=None, log_x=True):
    # Best variants first in the legend: by their fraction at the largest size.
    order = sorted(by_variant, key=lambda v: -by_variant[v][-1][1])
    for i, v in enumerate(order):
        xs, ys = zip(*by_variant[v])
        style = "-" if i < 10 else "--"
        ax.plot(xs, ys, style, marker="o", markersize=3, linewidth=1.2, label=v)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of copy bandwidth C")
    if log_x:
        ax.set_xscale("log", base=2)
    if xticks:
        ax.set_xticks([t for t, _ in xticks])
        ax.set_xticklabels([label for _, label in xticks], rotation=30 if not log_x else 0, fontsize=8)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper left")


def plot_primitives(path, out):
    j = load(path)
    rows = [r for r in j["rows"] if r.get("dtype") == "i32"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
    for ax, family in zip(axes, ("reduce", "scan")):
        s = series([r for r in rows if r["family"] == family], lambda r: r["n"])
        ns = sorted({x for p in s.values() for x, _ in p})
        draw(ax, s, f"{family}, int32", "elements n", [(n, f"2^{int(math.log2(n))}") for n in ns])
    fig.suptitle(f"{j.get('device', '')}: C = {j['copy_gbps']:.0f} GB/s (copy at 2^28)", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def plot_sat(path, out):
    j = load(path)
    rows = [r for r in j["rows"] if r["family"] == "sat" and not r["variant"].startswith("pipeline.")]
    dtypes = [d for d in ("u8", "rgba8", "f32") if any(r["dtype"] == d for r in rows)]
    fig, axes = plt.subplots(1, len(dtypes), figsize=(6 * len(dtypes), 5.2), squeeze=False)
    for ax, dtype in zip(axes[0], dtypes):
        sub = [r for r in rows if r["dtype"] == dtype]
        # Sizes as categories in the order of their pixel counts: the odd size 4097x3001 sits between
        # 3840x2160 and 4096x4096 and shows what unaligned rows cost.
        sizes = sorted({(r["width"] * r["height"], r["width"], r["height"]) for r in sub})
        index = {(w, h): i for i, (_, w, h) in enumerate(sizes)}
        s = series(sub, lambda r: index[(r["width"], r["height"])])
        draw(ax, s, f"SAT {dtype}", "image size", [(i, f"{w}x{h}") for (_, w, h), i in zip(sizes, range(len(sizes)))],
             log_x=False)
    fig.suptitle(f"{j.get('device', '')}: C = {j['copy_gbps']:.0f} GB/s; {j.get('statistic', '')}", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs"))
    a = ap.parse_args()
    plot_primitives(os.path.join(a.results, "h100-primitives.json"), os.path.join(a.out, "bench-primitives.png"))
    plot_sat(os.path.join(a.results, "h100-sat.json"), os.path.join(a.out, "bench-sat.png"))


if __name__ == "__main__":
    main()
