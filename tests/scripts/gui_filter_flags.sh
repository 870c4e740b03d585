#!/usr/bin/env bash
# The app takes the filter parameter flags of `satlab render` (one definition, app/cli/filter_options.hpp):
# `satlab --dof-mode layered` starts in that mode (the saved state says so, the picture is the one a preset
# with that mode gives), flags override a preset field by field, and a bad value is a usage error (exit 2).
# Usage: gui_filter_flags.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_scene
need_python3 "to read the saved state and the screenshots"
export SATLAB_ASSETS="$src/assets"
app() {  # app NAME ARGS...: a short headless run on the CPU backend that saves its final state
  local name=$1
  shift
  headless --backend cpu --size 960x540 --frames 3 --screenshot "$tmp/$name.png" --save-preset "$tmp/$name.json" \
    "$@" >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "run '$name' ($*) failed"; }
}
app flag --dof-mode layered --layers 4
printf '{"satlab_preset": 1, "params": {"dof_mode": "layered", "dof_layers": 4}}\n' >"$tmp/layered.json"
app preset --preset "$tmp/layered.json"
printf '{"satlab_preset": 1, "params": {"dof_mode": "gather_box", "max_radius": 12, "focus": 0.6}}\n' >"$tmp/box.json"
app over --preset "$tmp/box.json" --dof-mode layered --focus 0.3
app default
python3 - "$src/tools" "$tmp" <<'PY' || fail "the flags' state or picture"
import json, sys
sys.path.insert(0, sys.argv[1])
from check_screenshot import mean_abs_diff, read_png
tmp = sys.argv[2]
params = {n: json.load(open(f"{tmp}/{n}.json"))["params"] for n in ("flag", "preset", "over", "default")}
assert (params["flag"]["dof_mode"], params["flag"]["dof_layers"]) == ("layered", 4), params["flag"]
assert params["flag"] == params["preset"], "--dof-mode layered --layers 4 differs from the preset with them"
over = params["over"]
assert (over["dof_mode"], over["focus"], over["max_radius"]) == ("layered", 0.3, 12), over
shots = {n: read_png(f"{tmp}/{n}.png") for n in ("flag", "preset", "default")}
image = (range(0, 500, 2), range(80, 460, 2))  # the image area, left of the sidebar
assert mean_abs_diff(shots["flag"], shots["preset"], *image) == 0, "the flags' picture is not the preset's"
d = mean_abs_diff(shots["flag"], shots["default"], *image)
assert d > 0.2, f"--dof-mode layered left the default picture ({d:.3f})"
print(f"app flags: layered from the command line, as the preset gives it; over a preset field by field ({d:.2f})")
PY
# Usage errors: one line, exit 2, before any window or file is opened.
for bad in "--dof-mode nope" "--near 5 --far 2" "--layers 9"; do
  headless --backend cpu --frames 1 $bad >"$tmp/bad.log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || { cat "$tmp/bad.log"; fail "'$bad' exited $rc, not 2"; }
  grep -q "^satlab: .*(see --help)" "$tmp/bad.log" || { cat "$tmp/bad.log"; fail "'$bad': no usage line"; }
done
echo "app flags: bad values are usage errors"
echo "gui_filter_flags: all checks passed"
