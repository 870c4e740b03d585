#!/usr/bin/env bash
# A photo without depth in the app (headless, CPU backend, --input-script): it opens sharp (the export
# equals the input); S turns subject select on and a click on the subject (a disc on a textured
# background) selects it: the export then keeps the disc's interior (farther than the maximum radius from
# its edge) equal to the input and blurs the background.
# Usage: gui_subject_select.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the image and compare the results"
cd "$tmp" || exit 1
export PYTHONPATH="$src/tests/scripts"
# 160x90: a flat orange disc of radius 25 at (80, 45) over a fine blue checker (the area shows the image at
# 3.3125 px per pixel from y = 121 in a 960x540 window, as gui_depth_brush.sh finds).
python3 -c 'import png_util; png_util.write_disc_photo("photo.png", 160, 90, 80, 45, 25)' ||
  fail "cannot write the test image"
run() {  # run NAME SCRIPT_LINES...: a headless run in $tmp/NAME (the export folder '.')
  local name=$1
  shift
  mkdir "$name" && printf '%s\n' "$@" >"$name.txt"
  (cd "$name" && headless --backend cpu --max-radius 6 --size 960x540 --frames 14 --input-script "../$name.txt" \
    --screenshot "../$name.shot.png" ../photo.png) >"$name.log" 2>&1 || { cat "$name.log"; fail "run '$name' failed"; }
}
run sharp "3 ctrl E"
run subject "2 key S" "4 move 265 270" "5 down" "6 up" "9 ctrl E"
python3 - <<'PY' || fail "the results"
import glob, png_util
def result(folder):
    found = [f for f in glob.glob(folder + "/photo_*.png") if not f.endswith(("_coc.png", "_depth.png"))]
    assert len(found) == 1, f"{folder}: exported {found}"
    return png_util.read(found[0])[2]
img, sharp, subj = png_util.read("photo.png")[2], result("sharp"), result("subject")
pts = [(x, y) for y in range(90) for x in range(160)]
assert all(sharp(x, y) == img(x, y) for x, y in pts), "a photo without depth did not open sharp"
r = lambda x, y: ((x + 0.5 - 80) ** 2 + (y + 0.5 - 45) ** 2) ** 0.5
inside = [p for p in pts if r(*p) <= 25 - 7]
outside = [p for p in pts if r(*p) >= 25 + 7]
bad = [p for p in inside if subj(*p) != img(*p)]
assert not bad, f"{len(bad)} of {len(inside)} interior pixels differ from the input, e.g. {bad[:3]}"
blurred = sum(subj(*p) != img(*p) for p in outside)
assert blurred > 0.9 * len(outside), f"only {blurred} of {len(outside)} background pixels are blurred"
print(f"ok: interior {len(inside)} px kept, background {blurred} of {len(outside)} px blurred")
PY
echo "gui_subject_select: all checks passed"
