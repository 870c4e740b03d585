#!/usr/bin/env bash
# satlab quality --video on the truth sequences (tools/gen_cutouts --sequence; docs/quality.md "Clips"): the
# scores are what docs/quality/sequences-*.json records (0.01 dB, flicker to 1e-4), and on both sequences the
# default temporal filter cuts the error's flicker of phone_noisy depth at least 3x against per-frame
# rendering while the per-frame PSNR (whole and band) is not lower and the warping error (known motion) is
# lower (a filter that does nothing fails).
# Usage: cli_quality_video.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to compare the scores"
for set in tuning heldout; do
  cases="$src/assets/ground_truth/sequences_$set/cases.json"
  [ -f "$cases" ] || skip "no $cases"
  "$bin" quality --video --cases "$cases" --backend cpu --depth exact,phone_noisy --json "$tmp/$set.json" \
    >"$tmp/$set.log" 2>&1 || { cat "$tmp/$set.log"; fail "quality --video on the $set sequences failed"; }
done
python3 - "$tmp" "$src" <<'PY' || fail "the truth sequences' scores"
import json, sys
tmp, src = sys.argv[1], sys.argv[2]
for s in ("tuning", "heldout"):
    got = {(r["sequence"], r["depth"], r["temporal"]): r for r in json.load(open(f"{tmp}/{s}.json"))["rows"]}
    rec = {(r["sequence"], r["depth"], r["temporal"]): r
           for r in json.load(open(f"{src}/docs/quality/sequences-{s}.json"))["rows"] if r["depth"] in ("exact", "phone_noisy")}
    assert rec and set(got) == set(rec), f"{s}: rows {sorted(got)} against the record's {sorted(rec)}"
    for k, r in got.items():
        for f in ("psnr_mean", "band_psnr_mean"):
            assert abs(r[f] - rec[k][f]) <= 0.01, f"{s} {k} {f}: {r[f]:.3f}, recorded {rec[k][f]:.3f}"
        assert abs(r["flicker"] - rec[k]["flicker"]) <= 1e-4, f"{s} {k} flicker {r['flicker']}, recorded {rec[k]['flicker']}"
        assert abs(r["warping_error"] - rec[k]["warping_error"]) <= 1e-6, f"{s} {k} warping error {r['warping_error']}"
        assert r["warping_error"] >= r["warping_error_truth"] > 0, f"{s} {k}: warping error under the truth's own"
    for seq in {k[0] for k in got}:
        off, on = got[(seq, "phone_noisy", "off")], got[(seq, "phone_noisy", "gated")]
        assert on["flicker"] * 3 <= off["flicker"], f"{seq}: flicker {on['flicker']:.4f} gated, {off['flicker']:.4f} off"
        for f in ("psnr_mean", "band_psnr_mean"):
            assert on[f] >= off[f], f"{seq}: {f} {on[f]:.3f} gated < {off[f]:.3f} off"
        assert on["warping_error"] < off["warping_error"], f"{seq}: the filter did not lower the warping error"
        print(f"ok: {seq} phone_noisy flicker {off['flicker']:.4f} -> {on['flicker']:.4f} "
              f"({off['flicker'] / on['flicker']:.2f}x), PSNR {off['psnr_mean']:.2f} -> {on['psnr_mean']:.2f}")
PY
echo "cli_quality_video: all checks passed"
