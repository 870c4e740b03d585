#!/usr/bin/env bash
# The depth brush driven by --input-script in the GLFW window under Xvfb: B turns the brush on (strokes are
# painted at full resolution over the depth, stopping at the image's edges; the synthetic gradient is not
# refined, so no refiner runs), two strokes are painted near (value 0) over the synthetic gradient,
# the second is undone (Ctrl+Z), Ctrl+S saves NAME.depth.png beside the image; a second run opens the image,
# which loads that depth map from beside it, and saves the depth in use again: the two files are the same
# (loading gives the same depth). A third run redoes (Ctrl+Y) the undone stroke; a fourth picks a depth with
# the eyedropper (E) and paints with it. A screenshot of the raw and refined depth side by side is kept
# where SATLAB_SCREENSHOT_DIR says.
# Usage: gui_depth_brush.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_xvfb
need_python3 "to write the image and read the depth"
W=960 H=540
mkdir -p "$tmp/cwd" && cd "$tmp/cwd" || exit 1
# A 160x90 image (the area shows it at 3.3125 px per pixel from y = 121): dark top half, bright bottom.
python3 - photo.png <<'PY'
import struct, sys, zlib
w, h = 160, 90
rows = [bytes(v for x in range(w) for v in ((40, 60, 90) if y < 45 else (230, 210, 160))) for y in range(h)]
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
  + chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows))) + chunk(b"IEND", b""))
PY
run() {  # run NAME FRAMES ARGS...: the window under Xvfb, CPU backend
  local name=$1 frames=$2
  shift 2
  xvfb_run -a -s "-screen 0 ${W}x${H}x24" -- "$bin" --backend cpu --synthetic-depth gradient --size ${W}x${H} \
    --frames "$frames" \
    --screenshot "$tmp/$name.png" "$@" >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "run '$name' ($*) failed"; }
}
# Stroke 1 along image row 24 (window y 200) from x 15 to 60; stroke 2 along row 70 (window y 353).
strokes=("2 key B" "4 move 50 200" "5 down" "6 move 80 200" "7 move 150 201" "8 move 200 200" "9 up"
  "11 move 50 353" "12 down" "13 move 120 353" "14 move 200 353" "15 up" "17 ctrl Z")
printf '%s\n' "${strokes[@]}" "19 ctrl S" "20 move -1000 -1000" >"$tmp/paint.txt"
run paint 24 photo.png --input-script "$tmp/paint.txt"
[ -f photo.depth.png ] || { cat "$tmp/paint.log"; fail "Ctrl+S wrote no photo.depth.png"; }
grep -q "depth brush: 1 stroke(s), refine none" "$tmp/paint.log" ||
  { cat "$tmp/paint.log"; fail "not 1 stroke, painted unrefined over the synthetic gradient"; }
mv photo.depth.png "$tmp/painted.png"

cat >"$tmp/read16.py" <<'PY'
import struct, sys, zlib
def read(path):
    data, pos, idat = open(path, "rb").read(), 8, b""
    while pos < len(data):
        n, t = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if t == b"IHDR": w, h, bd, ct = struct.unpack(">IIBB", body[:10]); assert (bd, ct) == (16, 0), path
        if t == b"IDAT": idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    return lambda x, y: struct.unpack(">H", raw[y * (2 * w + 1) + 1 + 2 * x:y * (2 * w + 1) + 3 + 2 * x])[0] / 65535
d = read(sys.argv[1])
# The synthetic gradient (near at the bottom) is ~0.73 far at row 24: the stroke painted it near, and the
# refinement keeps it so inside the dark top half; beyond the stroke the gradient stays.
under, beside = d(35, 24), d(140, 24)
assert under < 0.3, f"under stroke 1: {under:.3f}"
assert beside > 0.5, f"beside stroke 1: {beside:.3f}"
row70, want = d(35, 70), sys.argv[2]
if want == "undone": assert row70 > 0.15, f"stroke 2 was undone, yet row 70 is {row70:.3f}"
else: assert row70 < 0.1, f"stroke 2 was redone, yet row 70 is {row70:.3f}"
print(f"{sys.argv[1].split('/')[-1]}: under stroke 1 {under:.3f}, beside {beside:.3f}, row 70 {row70:.3f} ({want})")
PY
python3 "$tmp/read16.py" "$tmp/painted.png" undone || fail "painted depth"

# Loading it back: photo.depth.png beside the image is its depth map; saved again, the same file.
cp "$tmp/painted.png" photo.depth.png
run reload 6 photo.png --save-depth "$tmp/reloaded.png"
cmp -s "$tmp/painted.png" "$tmp/reloaded.png" || fail "the reloaded depth differs from the saved one"
rm photo.depth.png

# Redo: the same strokes, undo, then Ctrl+Y brings stroke 2 back.
printf '%s\n' "${strokes[@]}" "18 ctrl Y" "20 move -1000 -1000" >"$tmp/redo.txt"
run redo 24 photo.png --input-script "$tmp/redo.txt" --save-depth "$tmp/redone.png"
python3 "$tmp/read16.py" "$tmp/redone.png" redone || fail "redone depth"

# Eyedropper: E, then a click where the gradient is far (row 24, x 140) takes that depth; stroke 2 painted
# with it lifts row 70 from ~0.22 (near the bottom) to about the picked depth.
printf '%s\n' "2 key B" "4 key E" "6 move 464 200" "7 down" "8 up" "10 move 50 353" "11 down" "12 move 120 353" \
  "13 move 200 353" "14 up" "16 move -1000 -1000" >"$tmp/pick.txt"
run pick 20 photo.png --input-script "$tmp/pick.txt" --save-depth "$tmp/picked.png"
python3 - "$tmp/read16.py" "$tmp/picked.png" <<'PY' || fail "eyedropper"
import sys
src = open(sys.argv[1]).read().split("d = read(sys.argv[1])")[0]
exec(src)
d = read(sys.argv[2])
v = d(35, 70)
assert v > 0.5, f"row 70 painted with the picked depth reads {v:.3f}"
print(f"eyedropper: row 70 painted with the depth picked at (140, 24): {v:.3f}")
PY

# Raw (painted) and refined depth side by side, the brush panel open, for a look.
printf '%s\n' "2 key B" "4 move 80 250" "5 down" "6 move 140 240" "7 move 200 230" "8 up" "10 move -1000 -1000" >"$tmp/side.txt"
run side 14 photo.png --input-script "$tmp/side.txt" --compare side --compare-view raw-depth --view depth
[ -n "${SATLAB_SCREENSHOT_DIR:-}" ] && cp "$tmp/side.png" "$SATLAB_SCREENSHOT_DIR/depth_brush_side.png"
echo "gui_depth_brush: strokes painted, undo and redo, saved, reloaded identical"
