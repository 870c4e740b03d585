#!/usr/bin/env bash
# Headless GUI test: the full UI rendered offscreen through EGL (Mesa's device platform here, NVIDIA's
# on the GPU machine) with no X server at all; the same screenshot checks as gui_smoke.sh. Also: a bad
# image on the command line is reported by name, the bundled scene opens instead, the exit is non-zero.
# Usage: gui_headless.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to check the screenshots"

for view in result input; do
  headless --size 1280x720 --frames 5 --view $view --backend cpu --screenshot "$tmp/$view.png" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; fail "headless run ($view) failed"; }
  # Five frames are too few for the summary: the run says so rather than ending silently.
  grep -q "^satlab: 5 frames of .*: no median frame time or stage summary" "$tmp/log" ||
    { cat "$tmp/log"; fail "a 5-frame run did not say why it has no summary"; }
done
python3 "$src/tools/check_screenshot.py" "$tmp/result.png" "$tmp/input.png" 1280 720 || fail "headless screenshots"

# The colour-mapped views render too (a broken shader branch would leave the image area flat).
for view in depth coc; do
  headless --size 640x360 --frames 2 --view $view --backend cpu --screenshot "$tmp/$view.png" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; fail "headless run ($view) failed"; }
done
python3 - "$src/tools" "$tmp/depth.png" "$tmp/coc.png" <<'PY' || fail "depth and CoC views"
import sys
sys.path.insert(0, sys.argv[1])
from check_screenshot import read_png
shots = [read_png(p) for p in sys.argv[2:]]
w, h, bpp, _ = shots[0]
# The image area (left of the sidebar, away from the status overlay): colour maps give many hues.
area = [(x, y) for y in range(h // 3, 5 * h // 6, 2) for x in range(w // 20, w // 2, 2)]
for path, (_, _, _, rows) in zip(sys.argv[2:], shots):
    colours = {bytes(rows[y][x * bpp:x * bpp + 3]) for x, y in area}
    assert len(colours) > 50, f"{path}: image area nearly flat ({len(colours)} colours)"
diff = sum(abs(shots[0][3][y][x * bpp + c] - shots[1][3][y][x * bpp + c]) for x, y in area for c in range(3))
assert diff / (3 * len(area)) > 10, "depth and CoC views look the same"
print("depth and CoC views: colour-mapped and distinct")
PY

printf 'junk' >"$tmp/bad.png"
headless --size 640x480 --frames 2 "$tmp/bad.png" >"$tmp/out" 2>"$tmp/err" && fail "bad image accepted"
grep -q "bad.png" "$tmp/err" || { cat "$tmp/err"; fail "bad image not named"; }
echo "gui_headless: all checks passed"
