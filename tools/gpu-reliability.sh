#!/usr/bin/env bash
# The reliability runs that need the GPU machine, in one call (docs/reliability.md): the whole GPU test
# suite (the injected and the real out-of-memory included), the scripted fault / fallback / limits checks,
# a 10,000-frame GPU soak, then tools/gpu-sanitize.sh (the four compute-sanitizer tools, side by side).
# Sequential until the sanitizers: the real out-of-memory test fills the device and the soak reads the
# device's memory in use, so nothing else may run beside them.
#   tools/gpu-reliability.sh BIN_DIR SOURCE_DIR       (BIN_DIR holds satlab and satlab_gpu_tests); logs in $OUT
set -u -o pipefail
BIN=$(cd "$1" && pwd) SRC=$(cd "$2" && pwd)
OUT=${OUT:-reliability-out}
mkdir -p "$OUT"
export OUT
status=0
step() { echo "== $1 ($(date +%T))"; }
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader || true

step "GPU tests"
"$BIN/satlab_gpu_tests" >"$OUT/gpu-tests.log" 2>&1 || status=1
grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]' "$OUT/gpu-tests.log" | tail -12

for s in gui_gpu_fault gui_reliability cli_limits_files; do
  step "$s"
  bash "$SRC/tests/scripts/$s.sh" "$BIN/satlab" "$SRC" >"$OUT/$s.log" 2>&1 || status=1
  tail -4 "$OUT/$s.log"
done

step "GPU soak, 10000 frames"
"$BIN/satlab" soak --backend gpu --frames 10000 --json "$OUT/soak-gpu.json" >"$OUT/soak-gpu.log" 2>&1 || status=1
tail -3 "$OUT/soak-gpu.log"

step "compute-sanitizer"
bash "$SRC/tools/gpu-sanitize.sh" "$BIN" || status=1
echo "gpu-reliability: status $status"
exit $status
