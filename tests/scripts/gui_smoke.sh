#!/usr/bin/env bash
# GUI smoke test: the GLFW window under Xvfb (Mesa llvmpipe). Screenshots of the result and input views
# must have the window's size, not be blank, and differ inside the image area (the blur did something)
# while showing the same scene. Without a display the app must refuse with one clear line.
# Usage: gui_smoke.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"

# No display and not headless: one clear line naming the alternatives, non-zero exit.
env -u DISPLAY -u WAYLAND_DISPLAY "$bin" --frames 1 >"$tmp/out" 2>"$tmp/err" && fail "no-display run exited 0"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "no-display message is not one line"; }
for word in "satlab render" "xvfb-run" "--headless"; do
  grep -q -- "$word" "$tmp/err" || { cat "$tmp/err"; fail "no-display message does not name '$word'"; }
done
# A display that cannot be opened: the same advice, non-zero.
env -u WAYLAND_DISPLAY DISPLAY=:987 "$bin" --frames 1 >"$tmp/out" 2>"$tmp/err" && fail "unreachable display accepted"
grep -q "xvfb-run" "$tmp/err" || { cat "$tmp/err"; fail "unreachable-display message does not name xvfb-run"; }

need_xvfb
need_python3 "to check the screenshots"
for view in result input; do
  xvfb_run -a -s "-screen 0 1600x900x24" -- "$bin" --frames 30 --view $view --backend cpu \
    --screenshot "$tmp/$view.png" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "window run ($view) failed"; }
done
python3 "$src/tools/check_screenshot.py" "$tmp/result.png" "$tmp/input.png" 1600 900 || fail "window screenshots"
echo "gui_smoke: all checks passed"
