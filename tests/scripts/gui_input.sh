#!/usr/bin/env bash
# Keys and mouse as a user gives them, fed by --input-script to a headless run, checked on screenshots
# against runs that set the same state from the command line: key 2 shows the input view; C then a drag
# of the divider to a quarter gives the split at 0.25; F1 shows the key table and Esc hides it; Ctrl+O
# opens the file browser; a click focuses (the result changes) and a drag pans without focusing; the
# wheel zooms both halves of a side-by-side compare alike; F starts the focus sweep and any key stops it;
# in the file browser a double-click opens an image and "open as depth map" a depth map (recent files);
# zoomed in, pixels are sampled nearest; R resets the view; Tab hides the panels.
# A bad script is refused naming its line.
# Usage: gui_input.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to check the screenshots"
bundled_scene  # the 384 x 216 one
W=960 H=540
mkdir -p "$tmp/cwd/folder" && cp "$scene" "$tmp/cwd/photo.png" && cp "$scene_depth" "$tmp/cwd/photo_depth.png"
cd "$tmp/cwd" || exit 1  # what Ctrl+O lists (the bundled scene is open: the working folder)
shot() {  # shot NAME FRAMES ARGS...: a headless screenshot on the CPU backend
  local name=$1 frames=$2
  shift 2
  headless --backend cpu --size ${W}x${H} --frames "$frames" \
    --screenshot "$tmp/$name.png" "$@" >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "run '$name' ($*) failed"; }
}
script() {  # script NAME EVENT...: writes NAME.txt, one event a line
  local name=$1
  shift
  printf '%s\n' "$@" >"$tmp/$name.txt"
}

# The image area is 530 px wide (960 - the 430 px sidebar); the image fills 530 x 298 from y = 121.
shot result 6
shot input 6 --view input
script key2 "2 key 2" && shot key2 6 --input-script "$tmp/key2.txt"
shot split25 6 --compare split:0.25 --compare-view input
script divider "1 key C" "3 move 265 270" "4 down" "5 move 200 272" "6 move 132.5 270" "7 up" "8 move -1000 -1000" &&
  shot divider 12 --input-script "$tmp/divider.txt"
shot keys 6 --show-keys
script f1 "2 key F1" && shot f1 6 --input-script "$tmp/f1.txt"
script f1esc "2 key F1" "5 key Esc" && shot f1esc 6 --input-script "$tmp/f1esc.txt"
shot browse 6 --browse "$tmp/cwd"
script ctrlo "2 ctrl O" && shot ctrlo 6 --input-script "$tmp/ctrlo.txt"
# The browser on cwd lists "..", "folder/", "photo.png", "photo_depth.png" from y = 142, 21 px apart:
# double-clicks into folder/, back up by "..", then on photo.png open it; a click on photo_depth.png, then
# on "open as depth map", opens that.
script open_image "3 move 360 163" "4 down" "5 up" "6 down" "7 up" "10 move 360 142" "11 down" "12 up" "13 down" \
  "14 up" "17 move 360 184" "18 down" "19 up" "20 down" "21 up" "22 move -1000 -1000" &&
  shot open_image 24 --browse "$tmp/cwd" --input-script "$tmp/open_image.txt"
script open_depth "3 move 360 205" "4 down" "5 up" "6 move 278 478" "7 down" "8 up" "9 move -1000 -1000" &&
  shot open_depth 10 --browse "$tmp/cwd" --input-script "$tmp/open_depth.txt"
python3 - "$XDG_CONFIG_HOME/satlab/recent.json" "$tmp/cwd" <<'PY' || fail "the file browser did not open the files"
import json, sys
recent = json.load(open(sys.argv[1]))["recent"]
want = [{"path": sys.argv[2] + "/photo_depth.png", "depth": True}, {"path": sys.argv[2] + "/photo.png", "depth": False}]
assert recent == want, f"recent files {recent}, expected {want}"
print("file browser: into a folder and back, double-click opened the image, 'open as depth map' the depth map")
PY
script click "2 move 100 200" "3 down" "4 up" "5 move -1000 -1000" && shot click 6 --input-script "$tmp/click.txt"
script pan "2 move 300 300" "3 down" "4 move 330 300" "5 move 360 300" "6 up" "7 move -1000 -1000" &&
  shot pan 6 --input-script "$tmp/pan.txt"
script zoom "2 move 132 270" "3 wheel 6" "4 move -1000 -1000" &&
  shot zoom 6 --compare side --compare-view result --input-script "$tmp/zoom.txt"
shot side 6 --compare side --compare-view result
script reset "2 move 265 270" "3 wheel 5" "5 key R" "6 move -1000 -1000" && shot reset 8 --input-script "$tmp/reset.txt"
script tab "2 key Tab" && shot tab 6 --input-script "$tmp/tab.txt"
script zoom16 "2 move 265 270" "3 wheel 20" "4 move -1000 -1000" && shot zoom16 6 --input-script "$tmp/zoom16.txt"
script sweep "2 key F" "40 key X" && shot sweep50 50 --input-script "$tmp/sweep.txt" && shot sweep60 60 --input-script "$tmp/sweep.txt"

python3 - "$src/tools" "$tmp" $W $H $scene_w <<'PY' || fail "screenshots"
import sys
sys.path.insert(0, sys.argv[1])
from check_screenshot import mean_abs_diff, pixel, read_png
tmp, W, H, scene_w = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
names = ["result", "input", "key2", "split25", "divider", "keys", "f1", "f1esc", "browse", "ctrlo", "click", "pan",
         "zoom", "side", "sweep50", "sweep60", "zoom16", "reset", "tab"]
shots = {n: read_png(f"{tmp}/{n}.png") for n in names}
iw = 530

def px(n, x, y):
    return pixel(shots[n], x, y)

def diff(a, b, xs, ys, shift=0):
    return mean_abs_diff(shots[a], shots[b], xs, ys, shift)

image = (range(10, iw - 10, 3), range(130, 410, 3))  # inside the letterboxed image
window = (range(0, W, 3), range(0, H, 3))
def same(a, b, area, what):
    d = diff(a, b, *area)
    assert d < 0.5, f"{what}: {a} and {b} differ ({d:.2f})"
    print(f"{what}: ok")
def different(a, b, area, what, at_least=1.0):
    d = diff(a, b, *area)
    assert d > at_least, f"{what}: {a} looks like {b} ({d:.2f})"
    print(f"{what}: ok ({d:.2f})")

different("input", "result", image, "input and result differ (else the checks below prove nothing)")
same("key2", "input", image, "key 2 shows the input view")
different("split25", "result", image, "the split at 0.25 is not the plain result")
same("divider", "split25", image, "dragging the divider to a quarter")
same("f1", "keys", window, "F1 shows the key table")
same("f1esc", "result", window, "Esc hides it")
different("keys", "result", window, "the key table draws", 2.0)
same("ctrlo", "browse", window, "Ctrl+O opens the file browser")
different("click", "result", image, "a click focuses there (the result changes)")
different("pan", "result", image, "a drag pans")
# A pan is not a click: panning back by the drag shows the unfocused result shifted by 60 px.
d = diff("pan", "result", range(80, iw - 20, 3), range(130, 410, 3), shift=-60)
assert d < 2.0, f"the drag moved the focus or panned wrongly ({d:.2f})"
print("a drag pans 60 px and does not focus: ok")
half = iw // 2
xs = range(5, half - 5, 3)
d = diff("zoom", "zoom", xs, range(60, H - 60, 3), shift=half)
assert d < 0.5, f"side by side: the wheel zoomed the halves differently ({d:.2f})"
different("zoom", "side", (xs, range(60, H - 60, 3)), "the wheel zoomed")
same("reset", "result", window, "R resets zoom and pan")
different("tab", "result", (range(600, W, 3), range(0, H, 3)), "Tab hides the panels", 5.0)
# Zoomed in 1.15^20 = 16.4 times (6.8 screen pixels per pixel of the 1280 px wide scene, 22.6 of the
# 384 px one): nearest sampling gives runs of that many equal pixels along a row; linear filtering would
# blend them.
runs = []
for y in range(150, 400, 25):
    row = [px("zoom16", x, y) for x in range(20, iw - 20)]
    n = 1
    for a, b in zip(row, row[1:]):
        if a == b:
            n += 1
        else:
            runs.append(n)
            n = 1
runs.sort()
assert len(runs) > 40, f"zoomed view too flat to tell the sampling ({len(runs)} runs)"
median, scale = runs[len(runs) // 2], 1.15**20 * iw / scene_w
assert abs(median - scale) <= 1.2, f"zoomed in, runs of equal pixels have median length {median} (nearest sampling gives {scale:.1f})"
print(f"zoomed in: nearest sampling ({len(runs)} runs, median {median} px)")
same("sweep50", "sweep60", image, "a key stops the focus sweep")
different("sweep50", "result", image, "the sweep moved the focus")
PY

printf '3 key F13\n' >"$tmp/bad.txt"
headless --size 320x240 --frames 2 --input-script "$tmp/bad.txt" \
  >"$tmp/out" 2>"$tmp/err" && fail "a bad input script was accepted"
grep -q "bad.txt:1" "$tmp/err" || { cat "$tmp/err"; fail "the bad script's line is not named"; }
echo "gui_input: all checks passed"
