#!/usr/bin/env bash
# The app's export of the result streamed at full resolution (app/gui/export_stream.hpp), headless, with
# Ctrl+E fed by --input-script: the progress lines show rows done going up through the bands, and the
# file written is byte for byte the one `satlab render` streams for the same image and parameters; Esc
# during an export cancels it, leaving no result and no temporary file (the other exports stay). Small
# tiles (--export-tile) give several bands, and a pause after each (--export-band-delay) lets the Esc land
# while the export runs.
# An image wider than the texture limit (forced small by --max-texture) opens as an overview of 1/4,
# zooming in decodes the visible region from the file at 1/2, then 1/1, and its export (from the file, not
# the overview) equals the whole-image `satlab render` of the file byte for byte.
# Usage: gui_export_stream.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the test image"
python3 "$src/tests/scripts/stream_images.py" png "$tmp/img.png" 301 203 || fail "cannot write the test image"
# The synthetic gradient (a photo without depth opens sharp in the app): a result that differs from the input.
args=(--backend cpu --synthetic-depth gradient --refine none --dof-mode gather_box --focus 0.4 --max-radius 9)
app() {  # app NAME DELAY_MS SCRIPT_LINES...: a headless run in $tmp/NAME (the export folder '.')
  local name=$1 delay=$2
  shift 2
  mkdir "$tmp/$name"
  printf '%s\n' "$@" >"$tmp/$name.txt"
  (cd "$tmp/$name" && headless "${args[@]}" --size 1280x720 --frames 10 --input-script "$tmp/$name.txt" \
    --export-tile 64 --export-band-delay "$delay" --screenshot "$tmp/$name.shot.png" "$tmp/img.png") \
    >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "run '$name' failed"; }
}
base=img_dof_f0.40_a40_r9
others="${base}_coc.png ${base}_depth.png ${base}_timings.csv ${base}_timings.json"

# A whole export: the result and the other files, the result streamed in bands of 64 rows.
app full 150 "3 ctrl E"
grep -q "^satlab: exported \./$base.png$" "$tmp/full.log" || { cat "$tmp/full.log"; fail "no result exported"; }
[ "$(cd "$tmp/full" && ls | tr '\n' ' ')" = "$base.png $others " ] ||
  { ls -A "$tmp/full"; fail "the export folder holds other files than the export's"; }
python3 - "$tmp/full.log" <<'PY' || { cat "$tmp/full.log"; fail "the export's progress"; }
import re, sys
rows = [(int(f), int(d), int(t)) for f, d, t in
        re.findall(r"^satlab: export at frame (\d+): (\d+) of (\d+) rows$", open(sys.argv[1]).read(), re.M)]
assert rows and rows[0][0] == 3, f"the export did not start at frame 3: {rows}"
assert all(t == 203 for _, _, t in rows), f"rows_total is not the image's height: {rows}"
done = [d for _, d, _ in rows]
assert done == sorted(done), f"rows done went back: {done}"
assert any(0 < d < 203 for d in done), f"no progress between the first and last band: {done}"
print(f"export progress over frames {rows[0][0]}-{rows[-1][0]}: rows {done}")
PY
"$bin" render "${args[@]}" --image "$tmp/img.png" --out "$tmp/render.png" --tile 128 >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "satlab render failed"; }
cmp "$tmp/render.png" "$tmp/full/$base.png" || fail "the export differs from satlab render's file"

# Esc two frames into the export: cancelled, no result and no temporary file; the app runs on (exit 0).
app cancel 400 "3 ctrl E" "5 key Esc"
grep -q "^satlab: export cancelled: no result written" "$tmp/cancel.log" ||
  { cat "$tmp/cancel.log"; fail "no cancel reported"; }
grep -q "^satlab: exported" "$tmp/cancel.log" && { cat "$tmp/cancel.log"; fail "a cancelled export reported files"; }
[ "$(cd "$tmp/cancel" && ls -A | tr '\n' ' ')" = "$others " ] ||
  { ls -A "$tmp/cancel"; fail "a cancelled export left a result or a temporary file"; }

# Larger than a texture: 2600 x 200 with textures of at most 1024 a side, in a 1000 x 600 window.
python3 "$src/tests/scripts/stream_images.py" png "$tmp/wide.png" 2600 200 || fail "cannot write the wide image"
mkdir "$tmp/large"
printf '%s\n' "2 move 300 300" "4 wheel 3" "7 wheel 3" "10 wheel 3" "12 ctrl E" >"$tmp/large.txt"
(cd "$tmp/large" && headless "${args[@]}" --size 1000x600 --frames 14 --max-texture 1024 \
  --input-script "$tmp/large.txt" "$tmp/wide.png") >"$tmp/large.log" 2>&1 ||
  { cat "$tmp/large.log"; fail "the large image's run failed"; }
python3 - "$tmp/large.log" <<'PY' || { cat "$tmp/large.log"; fail "the large image's levels"; }
import re, sys
log = open(sys.argv[1]).read()
assert re.search(r"^satlab: frame 0: full 650x50, .* \(overview 1/4 of 2600x200\)", log, re.M), "no overview first"
levels = [int(m) for m in re.findall(r"^satlab: frame \d+: detail \d+x\d+ at 1/(\d) of 2600x200", log, re.M)]
assert levels and levels[0] == 2 and levels[-1] == 1 and levels == sorted(levels, reverse=True), f"detail levels {levels}"
print(f"large image: overview 1/4, then detail at 1/{', 1/'.join(map(str, levels))} as the view zooms in")
PY
"$bin" render "${args[@]}" --image "$tmp/wide.png" --out "$tmp/wide_render.png" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "satlab render of the wide image failed"; }
cmp "$tmp/wide_render.png" "$tmp/large/wide_dof_f0.40_a40_r9.png" || fail "the large image's export differs from satlab render's"
echo "export: equal to satlab render byte for byte; cancel leaves no result; a large image opens as an overview"
