#!/usr/bin/env bash
# On the GPU backend `satlab render` streams an image that fits whole by default wherever the result is the
# same file (render_stream.hpp): for PNG (RGB, RGBA), striped and tiled TIFF and a generated 4000x3000 TIFF,
# with the box and the spread (default), gather_box and layered DoF modes and a large max radius, the
# default render streams and writes the very file `--whole` writes; with a 16-bit depth map file it renders
# whole. Needs a CUDA device (skipped otherwise); the CPU backend's default is checked by
# cli_stream_render.sh.
# Usage: cli_stream_default_gpu.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the test images"
img() { python3 "$src/tests/scripts/stream_images.py" "$@" || fail "cannot write $2"; }
mkdir "$tmp/in"
img png "$tmp/in/rgb.png" 1031 677
"$bin" render --image "$tmp/in/rgb.png" --filter box --backend gpu --out "$tmp/probe.tif" >/dev/null 2>"$tmp/err" ||
  skip "no GPU backend here: $(cat "$tmp/err")"
img png "$tmp/in/rgba.png" 640 1290 rgba
img strips "$tmp/in/strips.tif" 1270 1310 7
img tiles "$tmp/in/tiles.tif" 1310 650 32 48
img depth16 "$tmp/in/depth.png" 1031 677
"$bin" bench stream --generate-only --size 4000x3000 --dir "$tmp/in" >/dev/null || fail "cannot write the large input"
n=0
same() {  # STREAMS(yes|no) INPUT ARGS...: the default render streams (or not) and equals --whole's file
  local want=$1 in=$2 got=no
  shift 2
  "$bin" render --image "$tmp/in/$in" --backend gpu --out "$tmp/a.tif" "$@" >"$tmp/log" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "$in $*: the default render failed"; }
  grep -q "streamed in" "$tmp/log" && got=yes
  [ $got = "$want" ] || { cat "$tmp/log"; fail "$in $*: streamed by default: $got, not $want"; }
  "$bin" render --image "$tmp/in/$in" --backend gpu --out "$tmp/b.tif" --whole "$@" >"$tmp/log" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "$in $*: the --whole render failed"; }
  grep -q "streamed in" "$tmp/log" && { cat "$tmp/log"; fail "$in --whole $*: streamed"; }
  cmp -s "$tmp/a.tif" "$tmp/b.tif" || fail "$in $*: the default render differs from --whole's"
  n=$((n + 1))
}
for in in rgb.png rgba.png strips.tif tiles.tif stream_4000x3000.tif; do
  for args in "--filter box --radius 5" "--filter dof" "--filter dof --dof-mode gather_box" \
    "--filter dof --dof-mode layered" "--filter dof --max-radius 40"; do
    same yes "$in" $args
  done
done
# With a depth map file (read three times when streaming) the GPU renders whole unless it must stream.
same no rgb.png --filter dof --depth "$tmp/in/depth.png"
same no rgb.png --filter dof --depth "$tmp/in/depth.png" --dof-mode layered
echo "cli_stream_default_gpu: $n default renders, each the file --whole writes"
