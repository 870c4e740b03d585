#!/usr/bin/env bash
# Truthful timings in a window (Xvfb): `--frames N --continuous` prints a warm median for every pipeline
# stage (reduce, coc, dof and its phases on the CPU backend; the GPU's every-stage runs are checked by the GPU
# tests and tools/device.sh timings), the first, cold run is kept out (each stage has N-1 warm runs in the
# exported timings), and the Timings panel's screenshot is a real frame.
# Usage: gui_timings.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_xvfb
need_python3 "to read the exported timings"
bundled_scene  # the app's default scene, the 384 x 216 one

frames=12
# continuous WHAT ARGS...: a windowed --continuous run on the CPU backend exporting its timings; sets $json
continuous() {
  local what=$1
  shift
  rm -rf "$tmp/export" && mkdir -p "$tmp/export"
  xvfb_run -a -s "-screen 0 1280x800x24" -- "$bin" --size 1200x760 --frames $frames --continuous --backend cpu \
    --export "$tmp/export" "$@" >"$tmp/log" 2>"$tmp/err" || { cat "$tmp/log" "$tmp/err"; fail "$what run failed"; }
  json=$(ls "$tmp"/export/*_timings.json 2>/dev/null | head -1)
  [ -n "$json" ] || { ls -R "$tmp/export"; fail "no exported timings of the $what run"; }
}
# The box gather, whose stages are reduce, coc and dof with its phases sat and blur (rows "dof sat", "dof blur").
printf '{"satlab_preset": 1, "params": {"dof_mode": "gather_box"}}\n' >"$tmp/box.json"
continuous "gather_box" --preset "$tmp/box.json" --screenshot "$tmp/shot.png"
line=$(grep "satlab: stages (warm median ms, cold first runs excluded;" "$tmp/log") ||
  { cat "$tmp/log"; fail "no stage summary"; }
for stage in reduce coc sat blur draw ui; do
  echo "$line" | grep -q " $stage [0-9][0-9.]*;" || { echo "$line"; fail "no warm median for $stage"; }
done
echo "$line" | grep -q "no-warm-run" && { echo "$line"; fail "a stage of a continuous CPU run never ran warm"; }
[ -s "$tmp/shot.png" ] || fail "no screenshot"
python3 - "$json" $frames <<'PY' || fail "exported timings"
import json, sys
j = json.load(open(sys.argv[1]))
frames = int(sys.argv[2])
stages = {s["stage"]: s for s in j["stages"]}
for name in ("reduce", "coc", "dof", "dof sat", "dof blur"):
    s = stages[name]
    assert s["state"] == "warm", f"{name}: {s['state']}"
    # Every run of a continuous run, less the first (cold, kept apart in cold_ms).
    assert s["warm_runs"] == frames - 1, f"{name}: {s['warm_runs']} warm runs of {frames}"
    assert s["cold_ms"] > 0, f"{name}: no cold first run recorded"
print("timings: every stage warm, the cold first run kept apart")
PY
# The default mode (spread) times its tables in one "dof" stage; its phases, each a row of its own ("dof
# sat" apart from the box filter's "sat" stage), are in the panel and the export, warm like the stages.
continuous "spread"
python3 - "$json" $frames <<'PY' || fail "exported dof phases"
import json, sys
j = json.load(open(sys.argv[1]))
frames = int(sys.argv[2])
stages = {s["stage"]: s for s in j["stages"]}
assert stages["dof"]["parent"] == "", stages["dof"]
order = [s["stage"] for s in j["stages"]]
phases = ["dof spread", "dof sat", "dof fill", "dof composite"]
for name in phases:
    s = stages[name]
    assert s["parent"] == "dof", f"{name}: parent {s['parent']!r}"
    assert s["state"] == "warm" and s["warm_runs"] == frames - 1, f"{name}: {s['state']}, {s['warm_runs']} warm runs"
    assert 0 < s["ema_ms"] <= stages["dof"]["ema_ms"], f"{name}: {s['ema_ms']} ms against dof's {stages['dof']['ema_ms']}"
assert [o for o in order if o in phases] == phases, order
assert order.index("dof") < order.index("dof spread"), order
assert "sat" not in stages, "a phase was recorded as the sat stage"
print("timings: the spread's phases warm, each in its own row")
PY
echo "gui_timings: all checks passed"
