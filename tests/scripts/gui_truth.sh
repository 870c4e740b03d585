#!/usr/bin/env bash
# The ground-truth view in the GLFW window under Xvfb, on tiny cases rendered on the fly (gen_scene
# --truth into a private assets folder): --truth-case loads a case (image, depth, parameters) and the
# truth view shows its lens reference, which is neither the input nor the result; a split compare shows
# the truth left of the divider and the result right of it; without a case the truth view shows the
# input; an unknown case is reported (popup; a scripted run exits 1 with its line).
# Usage: gui_truth.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_xvfb
need_python3 "to check the screenshots"
need_gen_scene
export SATLAB_ASSETS="$tmp/assets"
mkdir -p "$tmp/assets/ground_truth"
small=  # under the sanitizers the bundled scene as the ground-truth set renders it, 384 x 216
sanitized && small=/ground_truth
cp "$src/assets$small/default.png" "$src/assets$small/default_depth.png" "$tmp/assets/" || fail "cannot copy the scene"
"$gen" --truth "$tmp/assets/ground_truth" --size 96 54 --lens 4 --scene occlusion >/dev/null || fail "gen_scene --truth"
W=960 H=540
shot() {  # shot NAME ARGS...
  local name=$1
  shift
  xvfb_run -a -s "-screen 0 3000x2000x24" -- "$bin" --backend cpu --size ${W}x${H} --frames 4 \
    --screenshot "$tmp/$name.png" "$@" >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "run '$name' ($*) failed"; }
}
case=occlusion_far_large
shot truth --truth-case $case --view truth
shot input --truth-case $case --view input
shot result --truth-case $case --view result
shot split --truth-case $case --view result --compare split:0.5 --compare-view truth
shot plain_truth --view truth
shot plain_input --view input
# An unknown case: the popup says so, the window keeps the bundled scene, and a scripted run reports the
# popup's line and exits 1 (as for any file that fails to open).
xvfb_run -a -s "-screen 0 3000x2000x24" -- "$bin" --backend cpu --size ${W}x${H} --frames 4 \
  --screenshot "$tmp/bad.png" --truth-case nosuch --view truth >"$tmp/bad.log" 2>&1
[ $? -eq 1 ] || { cat "$tmp/bad.log"; fail "an unknown case: expected exit 1"; }
grep -q "no ground-truth case named 'nosuch'" "$tmp/bad.log" || { cat "$tmp/bad.log"; fail "an unknown case is not reported"; }
[ -s "$tmp/bad.png" ] || fail "no screenshot after an unknown case"

python3 - "$src/tools" "$tmp" $W $H <<'PY' || fail "screenshots"
import sys
sys.path.insert(0, sys.argv[1])
from check_screenshot import mean_abs_diff, read_png
tmp, W, H = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
shots = {n: read_png(f"{tmp}/{n}.png") for n in
         ["truth", "input", "result", "split", "plain_truth", "plain_input"]}
iw = W - min(430, 0.45 * W)
ys = range(int(H * 0.36), int(H * 0.64), 3)
left = range(int(iw * 0.05), int(iw * 0.45), 3)
right = range(int(iw * 0.55), int(iw * 0.95), 3)
whole = range(int(iw * 0.05), int(iw * 0.95), 3)
d = lambda a, b, xs: mean_abs_diff(shots[a], shots[b], xs, ys, 0)
assert d("truth", "input", whole) > 1.0, "the truth view shows the input, not the lens reference"
assert d("truth", "result", whole) > 0.3, "the truth view shows the result"
print(f"truth view: differs from the input ({d('truth', 'input', whole):.2f}) and the result ({d('truth', 'result', whole):.2f})")
assert d("split", "truth", left) < 0.5, "split: the left of the divider is not the truth"
assert d("split", "result", right) < 0.5, "split: the right of the divider is not the result"
print("split: truth left of the divider, result right of it")
assert d("plain_truth", "plain_input", whole) < 0.5, "without a case the truth view is not the input"
print("no case: the truth view shows the input")
PY
echo "PASS"
