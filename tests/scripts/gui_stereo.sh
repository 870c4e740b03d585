#!/usr/bin/env bash
# `satlab IMAGE --right RIGHT` (headless EGL): the depth comes from stereo matching of the pair and the
# DoF reads it as disparity (the rectangle in front, at disparity 12, is nearer than the background at 4);
# a bad right image is reported by name and the app still runs on the image (a scripted run that met an
# error exits non-zero, as gui_headless.sh checks for a bad image).
# Usage: gui_stereo.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to make the pair"
png="$src/tests/scripts/stereo_png.py"

python3 "$png" pair "$tmp/l.png" "$tmp/r.png" || fail "could not write the pair"
headless "$tmp/l.png" --right "$tmp/r.png" --size 640x360 --frames 3 --backend cpu --save-depth "$tmp/depth.png" \
  --screenshot "$tmp/shot.png" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "headless run with --right failed"; }
[ -s "$tmp/shot.png" ] || fail "no screenshot"
# The saved depth is the edit domain [0,1] of the disparity map: the rectangle brighter (nearer) than the
# background, by about (12 - 4) / 12 of the range.
front=$(python3 "$png" grey16 "$tmp/depth.png" 50 32) back=$(python3 "$png" grey16 "$tmp/depth.png" 85 8)
[ "$front" -gt $((back + 30000)) ] || fail "rectangle ($front) not nearer than the background ($back)"

printf 'not an image' >"$tmp/bad.png"
headless "$tmp/l.png" --right "$tmp/bad.png" --size 640x360 --frames 2 --backend cpu --screenshot "$tmp/shot2.png" \
  >"$tmp/log" 2>&1 && fail "exit 0 after a bad right image"
grep -q "bad.png" "$tmp/log" || { cat "$tmp/log"; fail "the bad right image is not named"; }
[ -s "$tmp/shot2.png" ] || fail "no screenshot after a bad right image: the app did not run on"
echo ok
