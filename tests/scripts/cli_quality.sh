#!/usr/bin/env bash
# satlab quality on tiny ground-truth cases rendered on the fly by gen_scene --truth: the JSON's
# structure, the crops, the equal-images path (PSNR "inf", SSIM 1), --modes, the depth sources and
# refiners (--depth, --refine, --save-depth), the lens flags over the cases' lenses, and bad manifests and
# flags (exit 1 with one line).
. "$(dirname "$0")/lib/common.sh"
need_gen_scene
need_python3 "to read the JSON and crops"

"$gen" --truth "$tmp" --size 40 24 --lens 3 --scene occlusion >/dev/null || fail "gen_scene --truth"
mkdir "$tmp/crops"
"$bin" quality --cases "$tmp/cases.json" --json "$tmp/q.json" --backend cpu --runs 1 --crops "$tmp/crops" \
  >"$tmp/table" 2>&1 || { cat "$tmp/table"; fail "quality"; }
cat "$tmp/table"
python3 - "$tmp" <<'PY' || fail "JSON structure"
import json, os, sys
tmp = sys.argv[1]
cases = json.load(open(f"{tmp}/cases.json"))["cases"]
q = json.load(open(f"{tmp}/q.json"))
assert q["command"] == "satlab quality" and q["timer"] == "cpu" and q["rows"], q.keys()
names = {c["name"] for c in cases}
assert len(names) == 6, names
modes = {}
for r in q["rows"]:
    modes.setdefault(r["case"], []).append(r["mode"])
    for part in ("whole", "band"):
        s = r[part]
        assert isinstance(s["pixels"], int) and s["pixels"] >= 0, r
        if s["pixels"]:
            assert isinstance(s["psnr"], (int, float)) or s["psnr"] == "inf", r
            assert -1 <= s["ssim"] <= 1, r
        else:
            assert s["psnr"] is None and s["ssim"] is None, r
    assert r["whole"]["pixels"] == 40 * 24 and r["band"]["pixels"] <= 40 * 24, r
    assert r["ms"] > 0 and r["stages_ms"], r
    assert os.path.getsize(f"{tmp}/crops/{r['case']}_{r['mode']}.png") > 0, r
assert set(modes) == names, modes
lists = list(modes.values())
assert all(sorted(m) == sorted(lists[0]) and len(set(m)) == len(m) for m in lists), modes
assert "gather_box" in lists[0]
# A blurred case differs from its reference somewhere.
assert any(r["whole"]["psnr"] != "inf" for r in q["rows"])
# The generator records its camera's response; each case runs under it.
assert all(c["response_shoulder"] == 0.4 for c in cases), cases
assert all(abs(r["response_shoulder"] - 0.4) < 1e-6 for r in q["rows"]), q["rows"][0]
PY
# --response-shoulder overrides the manifest's: the linear-light modes score differently, gather_box the same.
"$bin" quality --cases "$tmp/cases.json" --json "$tmp/q0.json" --backend cpu --runs 1 --response-shoulder 0 \
  --modes gather_box,spread >/dev/null 2>&1 || fail "quality --response-shoulder 0"
python3 - "$tmp" <<'PY' || fail "--response-shoulder rows"
import json, sys
tmp = sys.argv[1]
key = lambda r: (r["case"], r["mode"])
q = {key(r): r for r in json.load(open(f"{tmp}/q.json"))["rows"]}
q0 = json.load(open(f"{tmp}/q0.json"))["rows"]
assert q0 and all(r["response_shoulder"] == 0 for r in q0), q0[0]
assert all(r["whole"] == q[key(r)]["whole"] for r in q0 if r["mode"] == "gather_box")
assert any(r["whole"] != q[key(r)]["whole"] for r in q0 if r["mode"] == "spread")
PY
err=$("$bin" quality --cases "$tmp/cases.json" --response-shoulder 0.95 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s\n' "$err" | grep -q -- --response-shoulder || fail "--response-shoulder 0.95: $err"

# Equal images: aperture 0 keeps the image sharp, and the reference is the image itself.
cat >"$tmp/same.json" <<JSON
{"cases": [{"name": "same", "image": "occlusion.png", "depth": "occlusion_depth.png",
  "reference": "occlusion.png", "focus": 0.5, "aperture": 0, "max_radius": 4, "near_depth": 1, "far_depth": 10}]}
JSON
"$bin" quality --cases "$tmp/same.json" --json "$tmp/same_q.json" --backend cpu --modes gather_box --runs 1 \
  >/dev/null 2>&1 || fail "quality on equal images"
python3 - "$tmp/same_q.json" <<'PY' || fail "equal images do not score the maximum"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 1 and rows[0]["mode"] == "gather_box", rows
w, b = rows[0]["whole"], rows[0]["band"]
assert w["psnr"] == "inf" and w["ssim"] == 1.0, w
assert b["pixels"] == 0 and b["psnr"] is None, b  # CoC 0 everywhere: no depth edge
PY

# Highlights on and off: a row each, flagged, with crops of their own; with no pixel bright enough the
# two score the same.
mkdir "$tmp/hl_crops"
"$bin" quality --cases "$tmp/cases.json" --json "$tmp/hl.json" --backend cpu --runs 1 --modes gather_linear \
  --highlights off,on --crops "$tmp/hl_crops" >/dev/null 2>&1 || fail "quality --highlights off,on"
"$bin" quality --cases "$tmp/cases.json" --json "$tmp/hl1.json" --backend cpu --runs 1 --modes gather_linear \
  --highlights off,on --highlight-threshold 1 >/dev/null 2>&1 || fail "quality --highlight-threshold 1"
python3 - "$tmp" <<'PY' || fail "highlight rows"
import json, os, sys
tmp = sys.argv[1]
rows = json.load(open(f"{tmp}/hl.json"))["rows"]
assert len(rows) == 12 and sorted(r["highlights"] for r in rows) == [False] * 6 + [True] * 6, rows
for r in rows:
    tag = "gather_linear_highlights" if r["highlights"] else "gather_linear"
    assert os.path.getsize(f"{tmp}/hl_crops/{r['case']}_{tag}.png") > 0, r
    assert ("highlights" in r["stages_ms"]) == r["highlights"], r["stages_ms"]
same = json.load(open(f"{tmp}/hl1.json"))["rows"]
by = {}
for r in same:
    by.setdefault(r["case"], {})[r["highlights"]] = r["whole"]
for case, s in by.items():
    assert s[True] == s[False], (case, s)
PY

# Depth sources and refiners (--depth, --refine): on the bundled cases, spread with the exact and the
# phone depth, each unrefined and with `auto`: a row per case, source and choice, finite scores; `auto`
# leaves the exact depth alone and refines the phone's; the exact rows score as without --depth.
# Under the sanitizers (SATLAB_SANITIZED) this full-size block is left to the plain build: it alone took
# 3 minutes there; the tiny cases below still run every source and refiner.
if ! sanitized; then
"$bin" quality --json "$tmp/src.json" --backend cpu --runs 1 --modes spread --depth exact,phone \
  --refine none,auto >"$tmp/src_table" 2>&1 || { cat "$tmp/src_table"; fail "quality --depth exact,phone"; }
"$bin" quality --json "$tmp/plain.json" --backend cpu --runs 1 --modes spread >/dev/null 2>&1 ||
  fail "quality on the bundled cases"
python3 - "$tmp" <<'PY' || fail "--depth rows"
import json, math, sys
tmp = sys.argv[1]
rows = json.load(open(f"{tmp}/src.json"))["rows"]
plain = {r["case"]: r for r in json.load(open(f"{tmp}/plain.json"))["rows"]}
assert len(plain) == 12, plain.keys()
seen = {}
for r in rows:
    key = (r["depth"], r["refine_choice"])
    seen.setdefault(r["case"], set()).add(key)
    for part in ("whole", "band"):
        assert isinstance(r[part]["psnr"], (int, float)) and math.isfinite(r[part]["psnr"]), r
        assert 0 < r[part]["ssim"] <= 1, r
    lo, hi = r["depth_range"]
    assert 0 <= lo < hi <= 1, r
    if r["depth"] == "exact":
        assert r["refine"] == "none" and r["depth_size"] == [384, 216], r
        assert r["whole"] == plain[r["case"]]["whole"] and r["band"] == plain[r["case"]]["band"], r
    else:
        assert r["depth_size"] == [96, 54] and r["units"] == "case", r
        assert r["refine"] == ("none" if r["refine_choice"] == "none" else r["refine"]) and r["refine"] != "auto", r
        if r["refine_choice"] == "auto":
            assert r["refine"] != "none", r
assert set(seen) == set(plain), seen.keys()
want = {(d, c) for d in ("exact", "phone") for c in ("none", "auto")}
assert all(s == want for s in seen.values()), seen
assert len(rows) == 12 * 4, len(rows)
# The phone's depth costs something somewhere.
by = {(r["case"], r["depth"], r["refine_choice"]): r["whole"]["psnr"] for r in rows}
assert any(by[(c, "phone", "none")] < by[(c, "exact", "none")] for c in plain), by
PY
fi

# Every source on the tiny cases (their right views come from gen_scene --truth), crops and saved depths
# named by source and refiner.
mkdir "$tmp/src_crops" "$tmp/src_images"
"$bin" quality --cases "$tmp/cases.json" --json "$tmp/all.json" --backend cpu --runs 1 --modes spread \
  --depth exact,phone,phone_noisy,stereo,brush --refine none,wmedian --crops "$tmp/src_crops" \
  --images "$tmp/src_images" --save-depth >"$tmp/all_table" 2>&1 || { cat "$tmp/all_table"; fail "every source"; }
python3 - "$tmp" <<'PY' || fail "every source's rows"
import json, math, os, sys
tmp = sys.argv[1]
rows = json.load(open(f"{tmp}/all.json"))["rows"]
sources = ("exact", "phone", "phone_noisy", "stereo", "brush")
assert len(rows) == 6 * 5 * 2, len(rows)
assert {(r["depth"], r["refine"]) for r in rows} == {(s, f) for s in sources for f in ("none", "wmedian")}
for r in rows:
    assert all(math.isfinite(r[p]["psnr"]) for p in ("whole", "band") if r[p]["pixels"]), r
    tag = "" if (r["depth"], r["refine"]) == ("exact", "none") else f"{r['depth']}_{r['refine']}_"
    assert os.path.getsize(f"{tmp}/src_crops/{r['case']}_{tag}spread.png") > 0, r
    assert os.path.getsize(f"{tmp}/src_images/{r['case']}_{tag}spread.png") > 0, r
    assert os.path.getsize(f"{tmp}/src_images/occlusion_{r['depth']}_depth.png") > 0, r
    assert os.path.getsize(f"{tmp}/src_images/occlusion_{r['depth']}_{r['refine']}_depth.png") > 0, r
for s in ("stereo", "brush"):
    assert os.path.getsize(f"{tmp}/src_images/occlusion_{s}_confidence.png") > 0, s
assert [r["depth_size"] for r in rows if r["depth"] == "phone"][0] == [10, 6]
PY

# The lens flags lay a lens over each case's: spread with cat-eye against the plain truth differs from plain
# spread and skips the modes that cannot carry it (said once); 0 is the case's own lens again.
lensq() {
  "$bin" quality --cases "$tmp/cases.json" --backend cpu --runs 1 --modes spread,gather_box --json "$tmp/$1.json" \
    "${@:2}" >"$tmp/$1.txt" 2>&1 || { cat "$tmp/$1.txt"; fail "quality $*"; }
}
lensq plain
lensq eye --cat-eye 0.6
lensq noeye --cat-eye 0
lensq swirl --lens vintage-swirl --chromatic 0.1
grep -q "skipped gather_box on the cases with an aperture profile, hole, picture or cat-eye" "$tmp/eye.txt" ||
  fail "no skip said: $(cat "$tmp/eye.txt")"
python3 - "$tmp" <<'PY' || fail "lens flags"
import json, sys
tmp = sys.argv[1]
def scores(name):
    return {(r["case"], r["mode"]): r["whole"]["psnr"] for r in json.load(open(f"{tmp}/{name}.json"))["rows"]}
plain, eye, noeye, swirl = (scores(n) for n in ("plain", "eye", "noeye", "swirl"))
assert noeye == plain, (noeye, plain)
assert all(m == "spread" for _, m in eye) and len(eye) == 6, eye
assert any(eye[k] != plain[k] for k in eye), "cat-eye changed nothing"
assert any(swirl[k] != eye[k] for k in swirl), "the preset and chromatic changed nothing"
print("ok: lens flags over the cases")
PY

# Bad input: one line on stderr, exit 1, nothing on stdout.
# A flag's bad value is a usage error: want=2.
bad() {
  local want=${want:-1} what=$1
  shift
  local err rc
  err=$("$bin" quality --backend cpu --runs 1 "$@" 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq "$want" ] || fail "$what: exit $rc (expected $want): $err"
  [ "$(printf '%s\n' "$err" | grep -vc '^satlab: note:')" -eq 1 ] || fail "$what: not one line: $err"
  echo "ok: $what: $err"
}
bad "missing manifest" --cases "$tmp/none.json"
echo '{"cases": [' >"$tmp/broken.json"
bad "broken JSON" --cases "$tmp/broken.json"
sed 's/"focus": 0.5, //' "$tmp/same.json" >"$tmp/nofocus.json"
bad "case without focus" --cases "$tmp/nofocus.json"
sed 's/"max_radius": 4/"max_radius": 5000/' "$tmp/same.json" >"$tmp/radius.json"
bad "max radius out of range" --cases "$tmp/radius.json"
sed 's/"max_radius": 4/"max_radius": 4, "response_shoulder": 1.5/' "$tmp/same.json" >"$tmp/shoulder.json"
bad "response shoulder out of range" --cases "$tmp/shoulder.json"
sed 's/"reference": "occlusion.png"/"reference": "gone.png"/' "$tmp/same.json" >"$tmp/gone.json"
bad "missing reference" --cases "$tmp/gone.json"
bad "unknown mode" --cases "$tmp/same.json" --modes gather_box,nosuch
bad "bad highlights list" --cases "$tmp/same.json" --highlights on,maybe
bad "unknown depth source" --cases "$tmp/same.json" --depth exact,lidar
bad "unknown refiner" --cases "$tmp/same.json" --refine none,magic
bad "stereo without a right view" --cases "$tmp/same.json" --depth stereo
bad "--save-depth without --images" --cases "$tmp/same.json" --save-depth
bad "cat-eye beside a profile" --cases "$tmp/cases.json" --cat-eye 0.5 --bokeh-profile 0.5
want=2 bad "a bad cat-eye" --cases "$tmp/cases.json" --cat-eye 0.5,1,2
want=2 bad "an unknown lens" --cases "$tmp/cases.json" --lens nosuch
echo "PASS"
