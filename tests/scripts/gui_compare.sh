#!/usr/bin/env bash
# Views and compare modes in the GLFW window under Xvfb, checked on screenshots: a split compare shows
# the input left of the divider and the result right of it, pixel for pixel as the single views do;
# side by side of one view twice gives two identical halves (zoom and pan are shared); raw | refined side by
# side shows equal depth in equal colour on both panes (one scale); the SAT view
# never decreases left to right; the difference against the CPU reference is black with the CPU backend;
# the key overlay, the file browser and the pixel tooltip draw; the focus sweep moves the focus. Also: an
# image opened by path lands in the recent-files list of $XDG_CONFIG_HOME, `--keys` prints the README's
# rows, a bad --compare is refused in one line.
# The screen is larger than the window, so the pointer (at its centre) hovers nothing.
# Usage: gui_compare.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_xvfb
need_python3 "to check the screenshots"
bundled_scene  # the 384 x 216 one
W=960 H=540
cp "$scene" "$tmp/photo.png"
cp "$scene_depth" "$tmp/photo_depth.png"
shot() {  # shot NAME ARGS...: a window screenshot of photo.png on the CPU backend
  local name=$1
  shift
  xvfb_run -a -s "-screen 0 3000x2000x24" -- "$bin" "$tmp/photo.png" --depth "$tmp/photo_depth.png" --backend cpu \
    --size ${W}x${H} --frames "${FRAMES:-4}" --screenshot "$tmp/$name.png" "$@" >"$tmp/$name.log" 2>&1 ||
    { cat "$tmp/$name.log"; fail "window run '$name' ($*) failed"; }
}
shot result --view result
shot input --view input
shot split --view result --compare split:0.5 --compare-view input
shot side --view result --compare side --compare-view result
shot sat --view sat --sat-channels
shot satl --view sat
shot diff --view diff
shot keys --view result --show-keys
mkdir -p "$tmp/folder/sub"
cp "$tmp/photo.png" "$tmp/folder/a.png"
shot browser --view result --browse "$tmp/folder"
FRAMES=12 shot sweep --view result --sweep
# Raw | refined side by side on a quarter-size depth of two flat halves, 0.31 and 0.63 (8-bit 80 and 160): the
# refined depth (auto: a refiner) spans them, so the depth view shows them as 0 and 1; the raw-depth view
# must use that scale too (equal depth, equal colour), not its raw values.
python3 - "$tmp/two_depths.png" $((scene_w / 4)) $((scene_h / 4)) <<'PNG'
import struct, sys, zlib
w, h = int(sys.argv[2]), int(sys.argv[3])
rows = [bytes(80 if x < w // 2 else 160 for x in range(w)) for y in range(h)]
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
  + chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows))) + chunk(b"IEND", b""))
PNG
xvfb_run -a -s "-screen 0 3000x2000x24" -- "$bin" "$tmp/photo.png" --depth "$tmp/two_depths.png" --backend cpu \
  --size ${W}x${H} --frames 4 --screenshot "$tmp/rawside.png" --view depth --compare side --compare-view raw-depth \
  >"$tmp/rawside.log" 2>&1 || { cat "$tmp/rawside.log"; fail "window run of raw | refined side by side failed"; }
# A screen of the window's size puts the pointer over the image: the pixel tooltip shows.
xvfb_run -a -s "-screen 0 ${W}x${H}x24" -- "$bin" "$tmp/photo.png" --depth "$tmp/photo_depth.png" --backend cpu \
  --size ${W}x${H} --frames 4 --screenshot "$tmp/hover.png" >"$tmp/hover.log" 2>&1 ||
  { cat "$tmp/hover.log"; fail "window run with the pointer over the image failed"; }

python3 - "$src/tools" "$tmp" $W $H <<'PY' || fail "screenshots"
import sys
sys.path.insert(0, sys.argv[1])
from check_screenshot import mean_abs_diff, pixel, read_png
tmp, W, H = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
shots = {n: read_png(f"{tmp}/{n}.png") for n in
         ["result", "input", "split", "side", "sat", "satl", "diff", "keys", "browser", "sweep", "hover", "rawside"]}
for n, (w, h, _, _) in shots.items():
    assert (w, h) == (W, H), f"{n}: {w}x{h}, expected {W}x{H}"
iw = W - min(430, 0.45 * W)  # the image area, left of the sidebar (scale 1 under Xvfb)

def px(n, x, y):
    return pixel(shots[n], x, y)

def mean_diff(a, b, xs, ys, shift=0):
    return mean_abs_diff(shots[a], shots[b], xs, ys, shift)

ys = range(int(H * 0.36), int(H * 0.64), 3)  # inside the letterboxed image, below the status overlay
left = range(int(iw * 0.05), int(iw * 0.45), 3)
right = range(int(iw * 0.55), int(iw * 0.95), 3)
for side, xs in (("left", left), ("right", right)):
    d = mean_diff("result", "input", xs, ys)
    assert d > 1.0, f"result and input hardly differ on the {side} ({d:.2f}): the split check would prove nothing"
assert mean_diff("split", "input", left, ys) < 0.5, "split: the left of the divider is not the input"
assert mean_diff("split", "result", right, ys) < 0.5, "split: the right of the divider is not the result"
print("split: input left of the divider, result right of it")

half = int(iw / 2)
xs = range(int(half * 0.05), int(half * 0.95), 3)
d = mean_diff("side", "side", xs, ys, shift=half)
assert d < 0.5, f"side by side of one view: the halves differ ({d:.2f}), zoom/pan not shared"
assert mean_diff("side", "result", xs, ys) > 1.0, "side by side looks like the single view"
print("side by side: both halves identical")

# Raw | refined: inside each flat half of the depth (a pane's image spans its full width), the raw-depth
# pane (left) and the depth pane (right) show one colour; the near and far halves differ.
ys_mid = range(int(H * 0.45), int(H * 0.55), 3)
near = range(int(half * 0.1), int(half * 0.35), 3)
far = range(int(half * 0.65), int(half * 0.9), 3)
for name, xs in (("near", near), ("far", far)):
    d = mean_diff("rawside", "rawside", xs, ys_mid, shift=half)
    assert d < 1.0, f"raw | refined: the {name} half differs in colour between the panes ({d:.2f}): two scales"
d = mean_abs_diff(shots["rawside"], shots["rawside"], near, ys_mid, int(half * 0.55))
assert d > 30, f"raw | refined: the near and far halves look alike ({d:.2f}): the check would prove nothing"
print("raw | refined side by side: one colour scale on both panes")

bg = (23, 23, 26)  # the viewer's background around the letterboxed image
y = int(H * 0.6)
row = [px("sat", x, y) for x in range(0, int(iw)) if max(abs(a - b) for a, b in zip(px("sat", x, y), bg)) > 3]
assert len(row) > iw / 2, f"SAT view: the image spans only {len(row)} px of the row"
lum = [sum(p) for p in row]
drops = sum(1 for a, b in zip(lum, lum[1:]) if b < a - 6)
assert lum[-1] > lum[0] + 30, f"SAT view: no growth left to right ({lum[0]} -> {lum[-1]})"
assert drops == 0, f"SAT view: brightness drops {drops} times along a row (a SAT never decreases)"
print(f"SAT view: non-decreasing along the row, {lum[0]} -> {lum[-1]}")

hues = {px("satl", x, y) for y in ys for x in range(int(iw * 0.05), int(iw * 0.95), 2)}
assert len(hues) > 200, f"luminance SAT view: only {len(hues)} colours (Turbo map with contour lines expected)"
print(f"luminance SAT view: {len(hues)} colours")

area = [(x, y) for y in ys for x in left]
assert all(px("diff", x, y) == (0, 0, 0) for x, y in area), "CPU backend: the difference view is not all black"
print("difference view: black (zero) with the CPU backend")

for n in ("keys", "browser"):
    xs = range(int(W * 0.3), int(W * 0.7), 3)
    d = mean_diff(n, "result", xs, range(int(H * 0.3), int(H * 0.7), 3))
    assert d > 5, f"{n}: the overlay did not draw (difference {d:.2f})"
print("key overlay and file browser draw")

xs = range(int(iw * 0.05), int(iw * 0.45), 3)
d = mean_diff("sweep", "result", xs, ys)
assert d > 1.0, f"the focus sweep did not change the result ({d:.2f})"
print(f"focus sweep: the result moved ({d:.2f})")

# The tooltip opens just right of and below the pointer (the screen's centre).
xs, ys = range(W // 2 + 30, W // 2 + 200, 2), range(H // 2 + 30, H // 2 + 80, 2)
d = mean_diff("hover", "result", xs, ys)
assert d > 15, f"no pixel tooltip next to the pointer (difference {d:.2f})"
print("pixel tooltip under the pointer")
PY

grep -q "$tmp/photo.png" "$XDG_CONFIG_HOME/satlab/recent.json" ||
  { cat "$XDG_CONFIG_HOME/satlab/recent.json"; fail "the opened image is not in the recent files"; }
grep -q "photo_depth.png" "$XDG_CONFIG_HOME/satlab/recent.json" || fail "the depth map is not in the recent files"
grep -q "default.png" "$XDG_CONFIG_HOME/satlab/recent.json" && fail "the bundled scene went into the recent files"

"$bin" --keys >"$tmp/keys.md" || fail "--keys failed"
tail -n +3 "$tmp/keys.md" | while IFS= read -r line; do
  grep -qxF -- "$line" "$src/README.md" || fail "README lacks the key row: $line"
done || exit 1

xvfb_run -a -- "$bin" --compare diagonal --frames 1 >"$tmp/out" 2>"$tmp/err" && fail "bad --compare accepted"
grep -q "compare" "$tmp/err" || { cat "$tmp/err"; fail "bad --compare not explained"; }
echo "gui_compare: all checks passed"
