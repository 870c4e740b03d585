#!/usr/bin/env bash
# The Filter panel's "dof mode" selector as a user works it, fed by --input-script to a headless run: a click
# opens the list, a click on its fourth entry chooses the layered mode. The saved state names the mode,
# the picture is the one `--preset` with that mode gives, and the Timings export holds that mode's phases.
# Usage: gui_dof_mode.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to read the saved state"
bundled_scene  # the app's default scene, the 384 x 216 one
run() {  # run NAME FRAMES ARGS...: a headless run on the CPU backend at 1280x720
  local name=$1 frames=$2
  shift 2
  headless --backend cpu --size 1280x720 --frames "$frames" \
    --screenshot "$tmp/$name.png" "$@" >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "run '$name' ($*) failed"; }
}
# At 1280x720 the sidebar's "dof mode" box is at (990, 522); its list opens below it, entries 21 px apart
# from y = 550: gather_box, gather_shape, gather_linear, layered (y = 613), spread.
printf '%s\n' "2 move 990 522" "3 down" "4 up" "6 move 940 613" "7 down" "8 up" "10 move -1000 -1000" >"$tmp/pick.txt"
mkdir -p "$tmp/export"
run picked 14 --input-script "$tmp/pick.txt" --save-preset "$tmp/picked.json" --export "$tmp/export"
printf '{"satlab_preset": 1, "params": {"dof_mode": "layered"}}\n' >"$tmp/layered.json"
run preset 14 --preset "$tmp/layered.json" --input-script <(echo "1 move -1000 -1000")
run default 14 --input-script <(echo "1 move -1000 -1000")
python3 - "$tmp" <<'PY' || fail "the selector did not choose the layered mode"
import glob, json, sys
tmp = sys.argv[1]
mode = json.load(open(tmp + "/picked.json"))["params"]["dof_mode"]
assert mode == "layered", f"saved dof_mode {mode!r}"
timings = json.load(open(glob.glob(tmp + "/export/*_timings.json")[0]))
phases = [s["stage"] for s in timings["stages"] if s.get("parent") == "dof" and s["state"] == "warm"]
assert phases == ["dof layers", "dof slice", "dof sat", "dof composite+fill"], phases
print("selector: the layered mode chosen, its phases timed")
PY
# The image area only (left of the 430 px sidebar, whose timings differ from run to run).
python3 - "$src/tools" "$tmp" <<'PY' || fail "screenshots"
import sys
sys.path.insert(0, sys.argv[1])
from check_screenshot import mean_abs_diff, read_png
tmp = sys.argv[2]
shots = {n: read_png(f"{tmp}/{n}.png") for n in ("picked", "preset", "default")}
image = (range(0, 850, 2), range(125, 595, 2))
d = mean_abs_diff(shots["picked"], shots["preset"], *image)
assert d == 0, f"the picked mode's picture differs from --preset's ({d:.3f})"
d = mean_abs_diff(shots["picked"], shots["default"], *image)
assert d > 0.2, f"choosing layered left the default (spread) picture ({d:.3f})"
print(f"selector: the picture is --preset's, not the default's ({d:.2f})")
PY
echo "gui_dof_mode: all checks passed"
