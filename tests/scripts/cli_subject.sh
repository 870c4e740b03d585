#!/usr/bin/env bash
# `satlab render --subject` and `satlab depth select` (CPU backend): a click on a flat disc over a fine
# checker selects the disc (the matte's IoU with it >= 0.99), the render keeps the disc's interior equal to
# the input and blurs the background, and the summary names the selection; a preset's selection renders
# the same; bad positions and conflicting
# options are one line and a non-zero exit, leaving no output.
# Usage: cli_subject.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the image and read the results"
cd "$tmp" || exit 1
export PYTHONPATH="$src/tests/scripts"
python3 -c 'import png_util; png_util.write_disc_photo("photo.png", 151, 101, 70, 50, 30)' ||
  fail "cannot write the test image"
"$bin" render photo.png --backend cpu --subject 70,50 --max-radius 6 --out out.png >render.log 2>&1 ||
  { cat render.log; fail "render --subject failed"; }
grep -q "subject select geodesic (cpu" render.log || { cat render.log; fail "the summary does not name the selection"; }
grep -q "focus 0," render.log || { cat render.log; fail "the focus is not on the subject (0)"; }
"$bin" depth select photo.png --backend cpu --subject 70,50 --out alpha.png --depth-out depth.png >select.log 2>&1 ||
  { cat select.log; fail "depth select failed"; }
python3 - <<'PY' || fail "the results"
import png_util
_, _, img = png_util.read("photo.png")
_, _, out = png_util.read("out.png")
_, _, alpha = png_util.read("alpha.png")
_, _, depth = png_util.read("depth.png")
r = lambda x, y: ((x + 0.5 - 70) ** 2 + (y + 0.5 - 50) ** 2) ** 0.5
pts = [(x, y) for y in range(101) for x in range(151)]
both = sum(alpha(*p) >= 0.5 and r(*p) <= 30 for p in pts)
either = sum(alpha(*p) >= 0.5 or r(*p) <= 30 for p in pts)
assert both / either >= 0.99, f"IoU {both / either:.4f}"
inside = [p for p in pts if r(*p) <= 30 - 7]
outside = [p for p in pts if r(*p) >= 30 + 7]
assert all(out(*p) == img(*p) for p in inside), "the subject's interior changed"
blurred = sum(out(*p) != img(*p) for p in outside)
assert blurred > 0.9 * len(outside), f"{blurred} of {len(outside)} background pixels blurred"
assert all(depth(*p) == 0 for p in inside) and all(depth(*p) == 1 for p in outside), "open layout depth"
print(f"ok: IoU {both / either:.4f}, interior kept, {blurred} of {len(outside)} background pixels blurred")
PY
# A preset's selection renders as the same --subject does.
printf '{"satlab_preset": 1, "params": {"max_radius": 6}, "selection": {"layout": "open", "clicks": [[70, 50, 0]]}}\n' \
  >sel.json
"$bin" render photo.png --backend cpu --preset sel.json --out preset.png >preset.log 2>&1 ||
  { cat preset.log; fail "render --preset with a selection failed"; }
cmp -s preset.png out.png || fail "the preset's selection rendered differently from --subject"
refuse() {  # refuse CODE WHAT ARGS...: exits CODE with one line, no output file
  local code=$1 what=$2
  shift 2
  "$bin" render photo.png --backend cpu --out bad.png "$@" >bad.log 2>&1
  local rc=$?
  [ $rc -eq "$code" ] || { cat bad.log; fail "$what: exit $rc, not $code"; }
  [ "$(wc -l <bad.log)" -eq 1 ] || { cat bad.log; fail "$what: not one line"; }
  [ ! -e bad.png ] || fail "$what: an output was written"
}
refuse 1 "a position outside the image" --subject 500,50
refuse 2 "a malformed position" --subject 70
refuse 2 "--subject with --depth" --subject 70,50 --depth photo.png
refuse 2 "--layout without --subject" --layout floor
echo "cli_subject: all checks passed"
