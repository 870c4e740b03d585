#!/usr/bin/env bash
# The front end's reliability paths (docs/reliability.md), headless through EGL: --max-megapixels on the
# GUI's command line refuses an image in one line; without CUDA-GL interop (Mesa here) the result reaches
# the screen by host upload and the run says so, with interop (the GPU machine) it says interop; a
# scripted run writes nothing into the working directory (no imgui.ini). The no-display path is
# gui_smoke.sh's first check.
# Usage: gui_reliability.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
bundled_scene  # the app's default scene, the 384 x 216 one
mkdir "$tmp/cwd"
cd "$tmp/cwd"

headless --size 640x360 --frames 2 --max-megapixels 0.5 "$src/assets/default.png" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || { cat "$tmp/err"; fail "an image over --max-megapixels was not refused"; }
grep -q "default.png: image is 1280x720 (0.9 Mpx), more than the limit of 0.5 Mpx" "$tmp/err" ||
  { cat "$tmp/err"; fail "unclear limit message"; }
headless --size 640x360 --frames 2 --max-megapixels 1 --backend cpu "$src/assets/default.png" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "under the limit"; }

headless --size 640x360 --frames 12 --continuous >"$tmp/out" 2>"$tmp/err" ||
  { cat "$tmp/out" "$tmp/err"; fail "headless run failed"; }
line=$(grep "result to screen:" "$tmp/out") || { cat "$tmp/out"; fail "no summary line"; }
echo "$line"
case "$line" in
  *"cpu ("*"result to screen: host upload"*) ;;               # no CUDA device: the CPU backend, host upload
  *"gpu ("*"result to screen: CUDA-GL interop"*) ;;           # the GPU machine
  *"gpu ("*"result to screen: host copy: "?*) ;;              # a GPU without interop: the reason follows
  *) fail "the summary does not say how the result reaches the screen" ;;
esac
[ -z "$(ls -A "$tmp/cwd")" ] || { ls -A "$tmp/cwd"; fail "a scripted GUI run wrote into the working directory"; }
echo "gui_reliability: all checks passed"
