#!/usr/bin/env bash
# A clip in the app (app/gui/playback.hpp), headless, keys fed by --input-script: an image sequence opens
# like an image; Right steps a frame, Left back; K sets a key at the playhead from the sliders; Ctrl+E
# exports the whole clip, which equals `satlab render` of the clip with the preset the app saves (its
# parameters and keys); Space plays (frames advance) and pauses. The timeline shows under the image.
# Usage: gui_clip.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
bundled_scene
need_python3 "to check the screenshot"
cd "$tmp" || fail "no tmp"
for k in 0 1 2 3 4; do  # five frames, numbered from 7, each the scene blurred a little more
  "$bin" render "$scene" --filter box --radius "$k" --out "in_$((k + 7)).png" >/dev/null 2>&1 || fail "cannot make frame $k"
done
run() {  # run NAME FRAMES EVENTS...: a headless run on the clip, its log in NAME.log
  local name=$1 frames=$2
  shift 2
  printf '%s\n' "$@" >"$name.txt"
  headless 'in_%d.png' --depth "$scene_depth" --focus 0.3 --aperture 40 --backend cpu --size 960x540 \
    --frames "$frames" --input-script "$name.txt" --screenshot "$name.png" --save-preset "$name.json" >"$name.log" 2>&1 ||
    { cat "$name.log"; fail "run $name failed"; }
}
run steps 16 "2 key Right" "4 key Right" "6 key K" "8 key Left" "10 ctrl E"
grep -q "^satlab: clip in_%d.png: frame 1 at 0.042 s, 4 frames shown, 1 key(s)" steps.log ||
  { cat steps.log; fail "Right, Right, Left did not leave frame 1 (4 frames shown, a key)"; }
grep -q "^satlab: clip key 0.083 s: focus 0.3000 aperture 40.00" steps.log || { cat steps.log; fail "the key is not at frame 2"; }
grep -q "^satlab: clip exported ./clip_dof_%04d.png (5 frames 384x216" steps.log || { cat steps.log; fail "no export"; }
grep -q '"keys"' steps.json || fail "the saved preset has no keys"
"$bin" render 'in_%d.png' --preset steps.json --depth "$scene_depth" --backend cpu --out 'cli_%04d.png' >cli.log 2>&1 ||
  { cat cli.log; fail "satlab render with the app's preset failed"; }
for n in 7 8 9 10 11; do
  f=$(printf %04d $n)
  [ -f "clip_dof_$f.png" ] || fail "the export has no frame $n"
  cmp -s "clip_dof_$f.png" "cli_$f.png" || fail "frame $n of the app's export differs from satlab render's"
done
# Space plays: frames advance by the clock (24 fps here); a second Space pauses.
run play 40 "2 key Space" "36 key Space"
shown=$(sed -n 's/^satlab: clip in_%d.png: frame [0-9]* at [0-9.]* s, \([0-9]*\) frames shown.*/\1/p' play.log)
[ -n "$shown" ] && [ "$shown" -ge 2 ] || { cat play.log; fail "playing showed no new frame ($shown shown)"; }
# The timeline bar is drawn along the bottom of the image area (530 px wide): its grey differs from the
# picture's, and the playhead line is white.
python3 - "$src" <<'PY' || fail "no timeline in the screenshot"
import sys
sys.path.insert(0, sys.argv[1] + "/tests/scripts")
import png_util
w, h, px = png_util.read("steps.png")
white = sum(1 for y in range(h - 60, h) for x in range(0, 530) if px(x, y) == (255, 255, 255))
assert white >= 10, f"{white} white pixels in the bottom 60 rows"
PY
echo "gui_clip: all checks passed"
