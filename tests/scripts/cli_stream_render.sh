#!/usr/bin/env bash
# `satlab render` streamed in tiles (--tile: core/tiled.hpp through the row readers and writers) writes the
# very file the whole-image path writes (--whole; cmp of the TIFF results), and so does the CPU backend's
# default, which streams a TIFF result quietly wherever it is the same file and the halos add little work
# (else, and for an orientation tag, a refiner, a depth map of another size, highlights or a PNG result, it
# renders whole), for PNG (RGB, RGBA), striped and tiled
# TIFF and JPEG input at awkward sizes (prime sides, tiles of 64 and 65 around sides of 64k +- 1, one-row
# and one-column images), with the box and dof filters, synthetic depth and 8- and 16-bit depth maps; a
# truncated TIFF, PNG and JPEG give one line, exit 1 and no output (temporary or final) once rows have
# been written; a memory budget too small for one tile is refused up front in one line; a depth map of
# another size, a refiner and an orientation tag (which streaming cannot apply) are refused in one line, and
# so is a WebP (read whole) too large for the budget.
# Usage: cli_stream_render.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the test images"
img() { python3 "$src/tests/scripts/stream_images.py" "$@" || fail "cannot write $2"; }
render() { "$bin" render --backend cpu "$@"; }
one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "$1: expected one error line"; }; }
nothing_written() {
  [ -z "$(ls -A "$tmp/out")" ] || { ls -A "$tmp/out"; fail "$1: something was written"; }
}
mkdir "$tmp/in" "$tmp/out"

# Inputs: name:size (W H) and how it is written.
img png "$tmp/in/rgb.png" 131 67
img png "$tmp/in/rgba.png" 64 129 rgba
img strips "$tmp/in/strips.tif" 127 131 7
img tiles "$tmp/in/tiles.tif" 131 65 32 48
img png "$tmp/in/row.png" 257 1
img png "$tmp/in/column.png" 1 131
render --image "$tmp/in/rgb.png" --filter box --radius 0 --out "$tmp/in/photo.jpg" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "cannot write the JPEG input"; }
img depth16 "$tmp/in/strips.depth.png" 127 131  # 16-bit depth beside the striped TIFF
img png "$tmp/in/tiles.depth.png" 131 65  # 8-bit colour depth (its first channel) beside the tiled TIFF

tiff_size() {  # FILE: WIDTHxHEIGHT of a classic TIFF's first directory
  python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
e = "<" if b[:2] == b"II" else ">"
off = struct.unpack(e + "I", b[4:8])[0]
tags = {}
for i in range(struct.unpack(e + "H", b[off:off + 2])[0]):
    tag, typ, cnt = struct.unpack(e + "HHI", b[off + 2 + 12 * i:off + 10 + 12 * i])
    v = b[off + 10 + 12 * i:off + 14 + 12 * i]
    tags[tag] = struct.unpack(e + "H", v[:2])[0] if typ == 3 else struct.unpack(e + "I", v)[0]
print(f"{tags[256]}x{tags[257]}")
PY
}
spp() {  # FILE: the SamplesPerPixel tag of a TIFF's first directory (classic or BigTIFF)
  python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
e = "<" if b[:2] == b"II" else ">"
big = struct.unpack(e + "H", b[2:4])[0] == 43
off = struct.unpack(e + ("Q" if big else "I"), b[(8 if big else 4):(16 if big else 8)])[0]
n = struct.unpack(e + ("Q" if big else "H"), b[off:off + (8 if big else 2)])[0]
first, size, at = off + (8 if big else 2), 20 if big else 12, 12 if big else 8
for i in range(n):
    p = first + i * size
    if struct.unpack(e + "H", b[p:p + 2])[0] == 277:
        print(struct.unpack(e + "H", b[p + at:p + at + 2])[0])
PY
}

same() {  # INPUT "TILE..." ARGS...: whole-image and streamed results (each tile size) are the same file,
  # RGB where the input has no alpha (every input here but rgba.png), RGBA where it has
  local in=$1 tiles=$2 tile want=3
  shift 2
  sanitized && tiles=${tiles%% *}  # under the sanitizers (memory errors, not arithmetic) the first tile size
  [ "$in" = rgba.png ] && want=4
  render --image "$tmp/in/$in" --out "$tmp/whole.tif" --whole "$@" >"$tmp/log" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "$in $*: the whole-image render failed"; }
  grep -q "streamed in" "$tmp/log" && { cat "$tmp/log"; fail "$in --whole $*: streamed"; }
  [ "$(spp "$tmp/whole.tif")" = "$want" ] || fail "$in: the result has $(spp "$tmp/whole.tif") samples a pixel, not $want"
  # By default the CPU backend streams wherever the result is the same: every case here but a JPEG's DoF
  # without a depth map (it may embed one, which only the whole path reads).
  render --image "$tmp/in/$in" --out "$tmp/default.tif" "$@" >"$tmp/log" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "$in $*: the default render failed"; }
  if [ "$in" = photo.jpg ] && [[ " $* " == *" dof "* ]]; then
    grep -q "streamed in" "$tmp/log" && { cat "$tmp/log"; fail "$in $*: a JPEG's DoF streamed by default"; }
  else
    grep -q "streamed in" "$tmp/log" || { cat "$tmp/log"; fail "$in $*: not streamed by default on the CPU"; }
  fi
  cmp -s "$tmp/whole.tif" "$tmp/default.tif" || fail "$in $*: the default render differs from the whole image's"
  grep -q "note: streaming\|note: stages" "$tmp/err" && { cat "$tmp/err"; fail "$in $*: streaming by choice is not quiet"; }
  for tile in $tiles; do
    render --image "$tmp/in/$in" --out "$tmp/tiled.tif" --tile "$tile" "$@" >"$tmp/log" 2>"$tmp/err" ||
      { cat "$tmp/err"; fail "$in --tile $tile $*: the streamed render failed"; }
    grep -q "streamed in" "$tmp/log" || { cat "$tmp/log"; fail "$in --tile $tile $*: not streamed"; }
    grep -q "note: streaming .* in tiles of" "$tmp/err" || { cat "$tmp/err"; fail "$in --tile $tile: no plan printed"; }
    cmp -s "$tmp/whole.tif" "$tmp/tiled.tif" || fail "$in --tile $tile $*: the streamed result differs from the whole image's"
    n=$((n + 1))
  done
}
n=0
for in in rgb.png rgba.png strips.tif tiles.tif photo.jpg row.png column.png; do
  same "$in" "64 65" --filter box --radius 5
  same "$in" "64 65" --filter dof --max-radius 6
done
# A depth map file beside the image (read by rows, in several passes), and other DoF modes.
for mode in gather_box spread layered; do
  same strips.tif 64 --filter dof --max-radius 7 --dof-mode "$mode"
done
same rgb.png 64 --filter dof --max-radius 5 --synthetic-depth radial:x=0.3,y=0.6,radius=0.4
same rgb.png 64 --filter dof --synthetic-depth none
echo "streamed == whole image: $n renders compared"

# Output formats other than TIFF stream too (pixels as the whole image's: compared through TIFF above).
for ext in png jpg; do
  render --image "$tmp/in/strips.tif" --tile 64 --filter box --radius 3 --out "$tmp/s.$ext" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "streaming to .$ext failed"; }
done
render --image "$tmp/in/strips.tif" --tile 64 --out "$tmp/out/s.webp" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "streaming to WebP: expected exit 1"
one_line "streaming to WebP"
nothing_written "streaming to WebP"

# Truncated inputs: the reader fails after the writer has taken rows; nothing may be left behind.
for f in strips.tif rgb.png photo.jpg; do
  size=$(stat -c %s "$tmp/in/$f")
  head -c $((size * 2 / 3)) "$tmp/in/$f" >"$tmp/in/cut_$f"
  render --image "$tmp/in/cut_$f" --tile 64 --filter box --radius 2 --out "$tmp/out/r.tif" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || { cat "$tmp/err"; fail "truncated $f streamed: exit $rc, not 1"; }
  grep -v "^satlab: note:" "$tmp/err" >"$tmp/err2" && mv "$tmp/err2" "$tmp/err"
  one_line "truncated $f"
  grep -q "cut_$f" "$tmp/err" || { cat "$tmp/err"; fail "truncated $f: the message does not name the file"; }
  nothing_written "truncated $f"
  echo "truncated $f streamed: $(cat "$tmp/err")"
done

# A budget too small for one tile and its halo: refused before anything is read or written.
"$bin" bench stream --generate-only --size 6000x1500 --dir "$tmp/in" >/dev/null || fail "cannot write the wide input"
for budget in 1M 60M; do  # too small for the row buffers; for the smallest tile with its halo
  render --image "$tmp/in/stream_6000x1500.tif" --tile 4096 --filter dof --max-radius 64 --memory-budget $budget \
    --out "$tmp/out/w.tif" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || { cat "$tmp/err"; fail "--memory-budget $budget: exit $rc, not 1"; }
  one_line "--memory-budget $budget"
  grep -q "too small" "$tmp/err" || { cat "$tmp/err"; fail "--memory-budget $budget: unclear message"; }
  nothing_written "--memory-budget $budget"
  echo "--memory-budget $budget refused: $(cat "$tmp/err")"
done
render --image "$tmp/in/stream_6000x1500.tif" --memory-budget lots --out "$tmp/out/w.tif" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "--memory-budget lots: expected a usage error (exit 2)"

# What streaming cannot do is refused in one line, with nothing written.
img png "$tmp/in/small_depth.png" 20 20
refused() {  # WHY GREP ARGS...
  local why=$1 pattern=$2
  shift 2
  render --tile 64 --out "$tmp/out/x.tif" "$@" >/dev/null 2>"$tmp/err"
  [ $? -eq 1 ] || { cat "$tmp/err"; fail "$why: expected exit 1"; }
  grep -v "^satlab: note:" "$tmp/err" >"$tmp/err2" && mv "$tmp/err2" "$tmp/err"
  one_line "$why"
  grep -q "$pattern" "$tmp/err" || { cat "$tmp/err"; fail "$why: unclear message"; }
  nothing_written "$why"
}
refused "a depth map of another size" "streaming takes a depth map of the image's size" \
  --image "$tmp/in/rgb.png" --depth "$tmp/in/small_depth.png" --filter dof
refused "a refiner" "needs the whole image" --image "$tmp/in/rgb.png" --filter dof --refine guided
img turned "$tmp/in/turned.png" 40 30 6
refused "an orientation tag" "orientation tag (6) turns the image" --image "$tmp/in/turned.png" --filter box
# An eXIf chunk after the image data, which libpng's header read does not reach: the row reader finds it.
img turned "$tmp/in/turned_late.png" 40 30 6 after
refused "a late orientation tag" "orientation tag (6) turns the image" --image "$tmp/in/turned_late.png" --filter box
# Without --tile, what streaming cannot do exactly is filtered whole instead (the CPU's default streaming):
# the turned images come out 30 x 40.
for case in "turned.png --filter box" "turned_late.png --filter box" "rgb.png --filter dof --refine guided" \
  "rgb.png --filter dof --depth $tmp/in/small_depth.png" "rgb.png --filter dof --highlights on"; do
  set -- $case
  img=$1; shift
  render --image "$tmp/in/$img" --out "$tmp/out/x.tif" "$@" >"$tmp/log" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "$case: the default render failed"; }
  grep -q "streamed in" "$tmp/log" && { cat "$tmp/log"; fail "$case: streamed by default"; }
  [ -s "$tmp/out/x.tif" ] || fail "$case: no result"
  case $img in
    turned*) [ "$(tiff_size "$tmp/out/x.tif")" = "30x40" ] || fail "$case: $(tiff_size "$tmp/out/x.tif"), not turned to 30x40" ;;
  esac
  rm -f "$tmp/out/x.tif"
done
# Only where the halos add at most 35% to the pixels filtered: a 1.1 Mpx image (more than one CPU frame)
# streams with a box of radius 3, not with one of 200.
"$bin" bench stream --generate-only --size 1100x1000 --dir "$tmp/in" >/dev/null || fail "cannot write the 1.1 Mpx input"
for radius in 3 200; do
  render --image "$tmp/in/stream_1100x1000.tif" --filter box --radius $radius --out "$tmp/out/x.tif" \
    --compression none >"$tmp/log" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "box $radius: the default render failed"; }
  streamed=no
  grep -q "streamed in" "$tmp/log" && streamed=yes
  [ $streamed = "$([ $radius = 3 ] && echo yes || echo no)" ] || { cat "$tmp/log"; fail "box $radius: streamed $streamed"; }
  rm -f "$tmp/out/x.tif"
done
# A PNG or JPEG result is encoded whole (its own settings): only a TIFF streams by default.
render --image "$tmp/in/strips.tif" --filter box --radius 3 --out "$tmp/out/x.png" >"$tmp/log" 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "a PNG result: the default render failed"; }
grep -q "streamed in" "$tmp/log" && { cat "$tmp/log"; fail "a PNG result streamed by default"; }
rm -f "$tmp/out/x.png"
echo "the CPU's default streaming falls back to the whole image where it must"

# A format read whole that is too large for the budget is refused, saying so.
render --image "$tmp/in/rgb.png" --filter box --radius 0 --out "$tmp/in/whole.webp" >/dev/null 2>&1 ||
  fail "cannot write the WebP input"
render --image "$tmp/in/whole.webp" --memory-budget 64K --out "$tmp/out/x.tif" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || { cat "$tmp/err"; fail "a WebP over the budget: expected exit 1"; }
one_line "a WebP over the budget"
grep -q "more than the memory budget.*read whole" "$tmp/err" || { cat "$tmp/err"; fail "a WebP over the budget: unclear"; }
nothing_written "a WebP over the budget"
echo "cli_stream_render: all checks passed"
