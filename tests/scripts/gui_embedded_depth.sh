#!/usr/bin/env bash
# Scripted GUI run (headless EGL) on a photo with embedded depth (GDepth RangeInverse): the app takes the
# depth and its fitted range (disparity on, near/far = the range the map covers) and its exported result is
# what `satlab render` makes of the same file, byte for byte (refined by default, and with --refine none).
# Usage: gui_embedded_depth.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to read the JSON files"
img="$src/tests/data/embedded_depth/gd_standard_xmp.jpg"
[ -f "$img" ] || skip "no sample at $img"
mkdir -p "$tmp/export"
(cd "$tmp" && headless --size 960x540 --backend cpu "$img" --frames 4 \
  --export "$tmp/export" --save-preset "$tmp/saved.json") >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "scripted run on the embedded-depth sample failed"; }
python3 - "$tmp/saved.json" <<'PY' || fail "the embedded range is not in the app's parameters"
import json, sys
p = json.load(open(sys.argv[1]))["params"]
assert p["disparity"] is True, p
assert abs(p["near_depth"] - 0.5) < 0.02 and abs(p["far_depth"] - 3.04) < 0.02, p
PY
result=$(ls "$tmp/export"/*.png | grep -v -e _depth.png -e _coc.png | head -1)
[ -s "$result" ] || { ls "$tmp/export"; fail "no exported result"; }
"$bin" render --image "$img" --preset "$tmp/saved.json" --backend cpu --out "$tmp/render.png" >/dev/null 2>&1 ||
  fail "render of the sample failed"
"$bin" render --image "$img" --backend cpu --out "$tmp/render_plain.png" >/dev/null 2>&1 || fail "render failed"
cmp -s "$tmp/render.png" "$result" || fail "the GUI's result differs from render with its preset"
cmp -s "$tmp/render_plain.png" "$result" || fail "the GUI's result differs from a plain render of the file"
# The map is smaller than the photo: the app refines it as render does; with --refine none (bilinear) both
# give another result, again byte for byte the same.
mkdir -p "$tmp/export_none"
(cd "$tmp" && headless --size 960x540 --backend cpu "$img" --refine none \
  --frames 4 --export "$tmp/export_none") >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "scripted run with --refine none failed"; }
none=$(ls "$tmp/export_none"/*.png | grep -v -e _depth.png -e _coc.png | head -1)
"$bin" render --image "$img" --refine none --backend cpu --out "$tmp/render_none.png" >/dev/null 2>&1 || fail "render --refine none failed"
cmp -s "$tmp/render_none.png" "$none" || fail "the GUI's result with --refine none differs from render --refine none"
cmp -s "$none" "$result" && fail "--refine none gave the refined result"
echo "ok: embedded depth in the app"
