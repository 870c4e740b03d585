#!/usr/bin/env python3
"""Each lens feature's spread score against its own truth beside plain spread's against the plain truth
(docs/lens.md): per case, PSNR whole / band and the difference; then how many cases are within 1 dB.
  tools/quality_lens_table.py PLAIN.json FEATURE.json [FEATURE.json ...]"""
import json
import sys


def rows(path):
    return {(r["case"], r["mode"]): r for r in json.load(open(path))["rows"] if not r.get("highlights")}


plain = rows(sys.argv[1])
for path in sys.argv[2:]:
    feat = rows(path)
    print(f"{path}\n| case | plain whole / band | feature whole / band | difference |\n|---|---|---|---|")
    met = total = 0
    worst = {}
    for key in sorted(plain):
        if key not in feat:
            continue
        pw, pb = plain[key]["whole"]["psnr"], plain[key]["band"]["psnr"]
        fw, fb = feat[key]["whole"]["psnr"], feat[key]["band"]["psnr"]
        w = worst.setdefault(key[1], [1e9, 1e9])
        w[0], w[1] = min(w[0], fw - pw), min(w[1], fb - pb)
        if key[1] == "spread":
            total += 1
            met += fw - pw >= -1 and fb - pb >= -1
            print(f"| {key[0]} | {pw:.2f} / {pb:.2f} | {fw:.2f} / {fb:.2f} | {fw - pw:+.2f} / {fb - pb:+.2f} |")
    print(f"spread within 1 dB, whole and band: {met} of {total}")
    print("worst difference per mode, whole / band: " +
          ", ".join(f"{m} {a:+.2f} / {b:+.2f}" for m, (a, b) in sorted(worst.items())))
