#!/usr/bin/env bash
# Scripted GUI runs (headless EGL) with files: open a photograph by path (its depth map beside it), load
# a preset, export result/depth/CoC/timings and save the preset back; the export matches `satlab render`
# with the same preset byte for byte, a second export never overwrites the first, a bad preset fails in
# one line naming the field, and scripted runs write no imgui.ini anywhere.
# Usage: gui_files.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to read the JSON files"
# In $tmp, whose listing shows whether a run wrote imgui.ini.
headless_in_tmp() { (cd "$tmp" && headless --size 960x540 --backend cpu "$@"); }
mkdir -p "$tmp/export"
cat >"$tmp/preset.json" <<'JSON'
{"satlab_preset": 1, "params": {"filter": "dof", "focus": 0.27, "aperture": 60, "max_radius": 10, "dof_mode": "gather_box"},
 "synthetic_depth": "radial:x=0.4,y=0.6,radius=0.5", "view": "coc", "compare": "split:0.3", "compare_view": "depth"}
JSON
img="$src/assets/coffee.png"
headless_in_tmp "$img" --frames 6 --preset "$tmp/preset.json" --export "$tmp/export" --save-preset "$tmp/saved.json" \
  >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "scripted run with preset and export failed"; }
base="$tmp/export/coffee_dof_f0.27_a60_r10"
for f in .png _depth.png _coc.png _timings.csv _timings.json; do
  [ -s "$base$f" ] || { ls "$tmp/export"; cat "$tmp/log"; fail "missing export $base$f"; }
done
# PNG header: width 600, height 400; the depth map is 16-bit grey, the others 8-bit RGBA.
ihdr() { od -An -tx1 -j16 -N10 "$1" | tr -d ' \n'; }
[ "$(ihdr "$base.png")" = "00000258000001900806" ] || fail "result PNG header $(ihdr "$base.png")"
[ "$(ihdr "${base}_depth.png")" = "00000258000001901000" ] ||
  fail "depth PNG is not 600x400 16-bit grey: $(ihdr "${base}_depth.png")"
[ "$(ihdr "${base}_coc.png")" = "00000258000001900806" ] || fail "CoC PNG header $(ihdr "${base}_coc.png")"
head -1 "${base}_timings.csv" | grep -q '^stage,ema_ms,last_ms,bytes,gb_per_s,state,cold_ms$' || fail "timings CSV header"
grep -q '^dof blur,' "${base}_timings.csv" || fail "timings CSV has no blur phase (gather_box's dof blur)"
# The result is what `satlab render` makes with the same preset (same CPU backend, same depth map).
"$bin" render "$img" --preset "$tmp/preset.json" --backend cpu --out "$tmp/render.png" >/dev/null 2>&1 ||
  fail "render with the preset failed"
cmp -s "$tmp/render.png" "$base.png" || fail "the GUI's exported result differs from satlab render's"
# The saved preset is the loaded one (the synthetic depth too, though the coffee scene has its own map).
python3 - "$tmp/preset.json" "$tmp/saved.json" "${base}_timings.json" <<'PY' || fail "saved preset or timings JSON"
import json, sys
a, b, t = (json.load(open(p)) for p in sys.argv[1:])
for k, v in a["params"].items():
    assert abs(b["params"][k] - v) < 1e-6 if isinstance(v, (int, float)) else b["params"][k] == v, (k, b["params"][k], v)
assert b["view"] == "coc" and b["synthetic_depth"] == "radial:x=0.4,y=0.6,radius=0.5", b
assert b["compare"] == "split:0.3" and b["compare_view"] == "depth", b
assert t["width"] == 600 and t["height"] == 400 and t["stages"], t
assert t["preset"]["params"]["focus"] == b["params"]["focus"]
PY
# An image without a depth map takes the preset's synthetic depth, the same as satlab render's.
cp "$img" "$tmp/photo.png"
headless_in_tmp "$tmp/photo.png" --frames 3 --preset "$tmp/preset.json" --export "$tmp/export" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "export of an image without depth failed"; }
"$bin" render "$tmp/photo.png" --preset "$tmp/preset.json" --backend cpu --out "$tmp/render_photo.png" >/dev/null 2>&1 ||
  fail "render of an image without depth failed"
cmp -s "$tmp/render_photo.png" "$tmp/export/photo_dof_f0.27_a60_r10.png" ||
  fail "the GUI's synthetic-depth result differs from satlab render's"
cmp -s "$tmp/render_photo.png" "$tmp/render.png" && fail "the synthetic depth gave the same result as the depth map"
# A second export with the same parameters picks the next free name; the first files stay as they were.
sum1=$(cat "$base".png | cksum)
headless_in_tmp "$img" --frames 3 --preset "$tmp/saved.json" --export "$tmp/export" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "second export failed"; }
[ -s "${base}-2.png" ] && [ -s "${base}-2_depth.png" ] || { ls "$tmp/export"; fail "second export not under the next free name"; }
[ "$(cat "$base".png | cksum)" = "$sum1" ] || fail "the first export was overwritten"
# A preset with a bad field: exit 1, the field named, nothing exported.
printf '{"satlab_preset": 1, "params": {"aperture": -3}}\n' >"$tmp/bad.json"
printf '{"satlab_preset": 1, "compare": "diagonal"}\n' >"$tmp/bad_compare.json"
headless_in_tmp "$img" --frames 2 --preset "$tmp/bad_compare.json" >"$tmp/log" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "'compare'" "$tmp/err" || { cat "$tmp/err"; fail "bad compare mode not refused naming the field"; }
headless_in_tmp "$img" --frames 3 --preset "$tmp/bad.json" --export "$tmp/export2" >"$tmp/log" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "params.aperture" "$tmp/err" || { cat "$tmp/log" "$tmp/err"; fail "bad preset not refused naming the field"; }
[ ! -e "$tmp/export2" ] || fail "exported despite the bad preset"
# Scripted runs keep no ImGui layout: no imgui.ini in the working folder or the config folder.
[ ! -e "$tmp/imgui.ini" ] && [ ! -e "$tmp/config/satlab/imgui.ini" ] || fail "a scripted run wrote imgui.ini"
echo "gui_files: all checks passed"
