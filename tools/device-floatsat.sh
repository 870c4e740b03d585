#!/usr/bin/env bash
# Issue 16's guided filter speed (3840x2160 colour <= 1 ms) on the device, one call: the float SAT and
# guided GPU tests (GPU = CPU within the bounds), `satlab verify`, the guided filter's bench (stage
# times; every float SAT builder at radius 8), the bench JSON (h200-depth.json) and compute-sanitizer
# memcheck + racecheck of the changed kernels (sat_lookback_2d's float tiles, the fused stack, the
# guided kernels) at small sizes. Logs and JSON go to $OUT (default device-out).
#   tools/device-floatsat.sh BIN_DIR        (BIN_DIR holds satlab and satlab_gpu_tests)
# (The session's A/B rows used bench-only switches since removed: docs/performance.md has their numbers.)
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=${SAN:-/usr/local/cuda/bin/compute-sanitizer}
LOG="$OUT/floatsat.log"
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log
  local limit=$1
  shift
  timeout "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$LOG" || true

step "GPU tests: float SATs and the guided filter"
run 100 "$BIN/satlab_gpu_tests" --gtest_filter='Sat.Float*:Sat.LookBack*:GpuGuidedFilter.*'
grep -E '^\[  (PASSED|FAILED|SKIPPED) |Failure|^guided |sat_lookback_2d .*x4: ' "$LOG" | head -30

step "guided: the float SAT builders, 3840x2160 colour, radius 8"
for b in sat_lookback_2d sat_single_pass sat_rows_columns; do
  echo "-- builder $b" >>"$LOG"
  run 30 "$BIN/satlab" bench depth --sizes 3840x2160 --radii 8 --sat-builder "$b"
done
step "bench depth"
run 60 "$BIN/satlab" bench depth --json "$OUT/h200-depth.json"
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool: float SAT and guided kernels (small sizes)"
  SATLAB_TEST_MAX_N=10000 SATLAB_TEST_OWN_SAT_ONLY=1 run 240 $SAN --tool $tool --error-exitcode 9 \
    --print-limit 20 "$BIN/satlab_gpu_tests" \
    --gtest_filter='Sat.Float*:GpuGuidedFilter.*:-GpuGuidedFilter.FourK*'
done
grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -8
step "satlab verify --families sat"
run 60 "$BIN/satlab" verify --families sat
tail -3 "$LOG"
echo "device-floatsat: status $status" | tee -a "$LOG"
exit $status
