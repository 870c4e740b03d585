#!/usr/bin/env bash
# The GPU side of truthful timings (issue 15) in one call on the GPU machine (see ../shared/DEVICE.md):
#   1. the GPU pipeline tests, among them GpuPipeline.EveryStageRunsReduceAndSatInEveryFrameWarmAfterTheFirst
#      (with set_every_stage every run reports reduce, normalise and sat; cold only after a new size or
#      variant), and compute-sanitizer memcheck on it at a small size;
#   2. headless (EGL) screenshots of the Timings panel with the GPU backend on a 3840x2160 scene:
#      "run every frame" (every row warm: reduce and sat in the 0.0x ms range, not the cold 10 ms), and a
#      focus sweep without it (reduce and sat "not run": the GPU keeps them); the --continuous summary must give
#      a warm median for reduce, normalise, coc, sat and blur, and the export every stage's state;
#   3. the same continuous run in a window, where Xvfb was carried (.x/, DEVICE.md's window recipe).
# Logs, JSON and PNGs go to $OUT (default device-out).
#   tools/device-install.sh BIN_DIR   (BIN_DIR holds satlab, satlab_gpu_tests and, for the 4K scene, gen_scene)
# The caller unpacks .gl/ and sets __EGL_VENDOR_LIBRARY_FILENAMES first (DEVICE.md's headless recipe).
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
SAN=/usr/local/cuda/bin/compute-sanitizer
status=0
step() { echo "== $1"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
"$BIN/satlab" --version | tee "$OUT/version.txt"

step "GPU pipeline tests"
"$BIN/satlab_gpu_tests" --gtest_filter='GpuPipeline.*' > "$OUT/gpu-tests.log" 2>&1 || status=1
grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|Failure' "$OUT/gpu-tests.log" | head -40
# On the GPU machine nothing may skip: a skip there means the device was not found.
grep -q '^\[  PASSED' "$OUT/gpu-tests.log" && ! grep -qE '^\[  (FAILED|SKIPPED)' "$OUT/gpu-tests.log" || status=1

step "compute-sanitizer memcheck, every-stage test (<= 140000 pixels)"
SATLAB_TEST_MAX_N=140000 timeout 240 $SAN --tool memcheck --error-exitcode 9 --print-limit 20 \
  "$BIN/satlab_gpu_tests" --gtest_filter='GpuPipeline.EveryStage*' > "$OUT/sanitizer-memcheck.log" 2>&1 || status=1
tail -3 "$OUT/sanitizer-memcheck.log"

scene=()
if [ -x "$BIN/gen_scene" ]; then
  step "3840x2160 scene (gen_scene)"
  mkdir -p "$OUT/scene4k"
  "$BIN/gen_scene" "$OUT/scene4k" 3840 2160 > "$OUT/scene4k.log" 2>&1 &&
    scene=("$OUT/scene4k/default.png" --depth "$OUT/scene4k/default_depth.png") || echo "gen_scene failed: the bundled scene"
fi

# A run's stage summary must hold a warm median (a number) for each pipeline stage of the GPU backend.
check_summary() {  # LOG
  local line s
  line=$(grep "satlab: stages (warm median ms" "$1") || { echo "no stage summary in $1"; return 1; }
  echo "$line"
  for s in reduce normalise coc sat blur; do
    echo "$line" | grep -q " $s [0-9][0-9.]*;" || { echo "no warm median for $s"; return 1; }
  done
}
check_export() {  # DIR STATE_OF_REDUCE_AND_SAT
  python3 - "$1" "$2" <<'PY'
import glob, json, sys
j = json.load(open(sorted(glob.glob(sys.argv[1] + "/*_timings.json"))[-1]))
for s in j["stages"]:
    print(f'{s["stage"]:>24} {s["state"]:>8} ema {s["ema_ms"]:.4f} ms  cold {s["cold_ms"]:.4f} ms  warm runs {s["warm_runs"]}')
st = {s["stage"]: s for s in j["stages"]}
for name in ("reduce", "sat"):
    assert st[name]["state"] == sys.argv[2], f'{name}: {st[name]["state"]}, expected {sys.argv[2]}'
PY
}

step "headless, GPU backend, run every frame"
# The box gather: its depth normalisation and SAT are the stages kept between frames (the shaped DoF
# modes rebuild their tables in every frame). Exports go to a scratch folder: $OUT keeps logs and shots.
EXP=${TMPDIR:-/tmp}/device-install-export
mkdir -p "$EXP/export-continuous" "$EXP/export-on-change"
printf '{"satlab_preset": 1, "params": {"dof_mode": "gather_box"}}\n' > "$EXP/box.json"
"$BIN/satlab" --headless --size 1920x1080 --frames 150 --continuous --backend gpu "${scene[@]}" \
  --preset "$EXP/box.json" --export "$EXP/export-continuous" --screenshot "$OUT/timings-gpu-continuous.png" > "$OUT/continuous.log" 2>&1 ||
  { tail -5 "$OUT/continuous.log"; status=1; }
grep "^satlab: " "$OUT/continuous.log" | head -5
check_summary "$OUT/continuous.log" || status=1
check_export "$EXP/export-continuous" warm || status=1

step "headless, GPU backend, focus sweep without 'run every frame' (the kept reduce and sat show as not run)"
"$BIN/satlab" --headless --size 1920x1080 --frames 60 --sweep --backend gpu "${scene[@]}" \
  --preset "$EXP/box.json" --export "$EXP/export-on-change" --screenshot "$OUT/timings-gpu-on-change.png" > "$OUT/on-change.log" 2>&1 ||
  { tail -5 "$OUT/on-change.log"; status=1; }
check_export "$EXP/export-on-change" "not run" || status=1

if command -v Xvfb >/dev/null; then
  step "window (Xvfb + NVIDIA GLX), GPU backend, run every frame"
  Xvfb :99 -screen 0 1920x1200x24 +extension GLX > "$OUT/xvfb.log" 2>&1 &
  xvfb=$!
  sleep 3
  DISPLAY=:99 __GLX_VENDOR_LIBRARY_NAME=nvidia "$BIN/satlab" --size 1920x1080 --frames 150 --continuous --backend gpu \
    "${scene[@]}" --screenshot "$OUT/timings-gpu-window.png" > "$OUT/window.log" 2>&1 || { tail -5 "$OUT/window.log"; status=1; }
  check_summary "$OUT/window.log" || status=1
  kill "$xvfb"
else
  echo "no Xvfb here: the window run is skipped (carry .x/, DEVICE.md)"
fi
echo "device-install: status $status"
exit $status
