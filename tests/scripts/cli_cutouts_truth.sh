#!/usr/bin/env bash
# The cut-out truth set (tools/gen_cutouts, docs/quality.md "Photographs as planes and cut-outs"): every
# case's exact-depth render (spread, CPU) scores what docs/quality/cutouts-*.json records, whole and band,
# to 0.01 dB, and so does the render from subject select's depth (--depth selection, recorded in
# docs/quality/cutouts-selection-*.json); --select-params changes the selection; and the tuning and held-out
# sets share no photograph.
# Usage: cli_cutouts_truth.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to compare the scores"
for set in tuning heldout; do
  cases="$src/assets/ground_truth/cutouts_$set/cases.json"
  [ -f "$cases" ] || skip "no $cases"
  "$bin" quality --cases "$cases" --backend cpu --modes spread --depth exact --refine none --json "$tmp/$set.json" \
    >"$tmp/$set.log" 2>&1 || { cat "$tmp/$set.log"; fail "quality on the $set set failed"; }
  "$bin" quality --cases "$cases" --backend cpu --modes spread --depth selection --json "$tmp/$set-selection.json" \
    >"$tmp/$set-selection.log" 2>&1 || { cat "$tmp/$set-selection.log"; fail "quality --depth selection ($set)"; }
done
# --select-params reaches the selection source: another matte radius moves its scores; a bad key is one line.
"$bin" quality --cases "$src/assets/ground_truth/cutouts_heldout/cases.json" --backend cpu --modes spread \
  --depth selection --select-params matte=12 --json "$tmp/heldout-matte12.json" >"$tmp/m12.log" 2>&1 ||
  { cat "$tmp/m12.log"; fail "quality --select-params matte=12"; }
if "$bin" quality --cases "$src/assets/ground_truth/cutouts_heldout/cases.json" --backend cpu --depth selection \
  --select-params bogus=1 >"$tmp/bad.log" 2>&1; then fail "--select-params bogus=1 was accepted"; fi
grep -q "unknown key 'bogus'" "$tmp/bad.log" || { cat "$tmp/bad.log"; fail "no clear line for a bad key"; }
python3 - "$tmp" "$src" <<'PY' || fail "the cut-out truth set"
import json, sys
tmp, src = sys.argv[1], sys.argv[2]
photos = {}
for s in ("tuning", "heldout"):
    got = {r["case"]: r for r in json.load(open(f"{tmp}/{s}.json"))["rows"]}
    rec = {r["case"]: r for r in json.load(open(f"{src}/docs/quality/cutouts-{s}.json"))["rows"]
           if r["depth"] == "exact" and r["refine"] == "none" and r["mode"] == "spread"}
    assert rec and set(got) == set(rec), f"{s}: cases {sorted(got)} against the record's {sorted(rec)}"
    for c, r in got.items():
        for part in ("whole", "band"):
            d = abs(r[part]["psnr"] - rec[c][part]["psnr"])
            assert d <= 0.01, f"{s} {c} {part}: {r[part]['psnr']:.3f} dB, recorded {rec[c][part]['psnr']:.3f}"
    got = {r["case"]: r for r in json.load(open(f"{tmp}/{s}-selection.json"))["rows"]}
    rec = {r["case"]: r for r in json.load(open(f"{src}/docs/quality/cutouts-selection-{s}.json"))["rows"]
           if r["depth"] == "selection"}
    assert rec and set(got) == set(rec), f"{s} selection: cases {sorted(got)} against {sorted(rec)}"
    for c, r in got.items():
        for part in ("whole", "band"):
            d = abs(r[part]["psnr"] - rec[c][part]["psnr"])
            assert d <= 0.01, f"{s} {c} selection {part}: {r[part]['psnr']:.3f} dB, recorded {rec[c][part]['psnr']:.3f}"
    manifest = json.load(open(f"{src}/assets/ground_truth/cutouts_{s}/cases.json"))["cases"]
    photos[s] = {p for c in manifest for p in c["photographs"]}
a = {r["case"]: r["whole"]["psnr"] for r in json.load(open(f"{tmp}/heldout-selection.json"))["rows"]}
b = {r["case"]: r["whole"]["psnr"] for r in json.load(open(f"{tmp}/heldout-matte12.json"))["rows"]}
assert any(abs(a[c] - b[c]) > 0.05 for c in a), "--select-params matte=12 changed no selection score"
both = photos["tuning"] & photos["heldout"]
assert not both, f"photographs in both sets: {sorted(both)}"
print(f"ok: {len(photos['tuning'])} and {len(photos['heldout'])} photographs, none in both; scores as recorded")
PY
echo "cli_cutouts_truth: all checks passed"
