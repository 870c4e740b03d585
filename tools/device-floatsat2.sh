#!/usr/bin/env bash
# Issue 16's guided filter speed (3840x2160 colour <= 1 ms at any radius), third pass, on the device in one
# call: the float SAT and guided GPU tests (GPU = CPU within the bounds), the guided filter's bench (stage
# times, both radii) and its JSON (h200-depth.json), `satlab verify --families sat`, and
# compute-sanitizer memcheck + racecheck of the float tiles and the guided kernels at small sizes (the
# guided bench at 132x67 (raw copies, vector loads of group 3, a last tile of 4 pixels) and 131x67 (register loads), one
# run each: the gtest sweep runs hundreds of filters and did not finish under racecheck). (The pass's
# A/B rows used bench-only switches since removed: docs/performance.md has their numbers.)
#   tools/device-floatsat2.sh BIN_DIR        (BIN_DIR holds satlab and satlab_gpu_tests)
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=${SAN:-/usr/local/cuda/bin/compute-sanitizer}
LOG="$OUT/floatsat2.log"
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
grep -E '^\[  (PASSED|FAILED|SKIPPED) |Failure|^guided 3840|sat_lookback_2d .*x4: ' "$LOG" | head -30

small="--sizes 132x67 131x67 --radii 2 40 --runs 1 --warmup 0"
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool: the guided filter's kernels and float tiles (small sizes)"
  run $([ $tool = racecheck ] && echo 70 || echo 40) $SAN --tool $tool --error-exitcode 9 --print-limit 20 "$BIN/satlab" bench depth $small
done
grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -4

step "bench depth (JSON), then again (a second sample of the same build)"
run 30 "$BIN/satlab" bench depth --json "$OUT/h200-depth.json"
run 30 "$BIN/satlab" bench depth --runs 40
step "satlab verify --families sat"
run 40 "$BIN/satlab" verify --families sat
tail -3 "$LOG"
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool: the float SAT tests (odd sizes up to 3000 pixels)"
  SATLAB_TEST_MAX_N=3000 SATLAB_TEST_OWN_SAT_ONLY=1 run 45 $SAN --tool $tool --error-exitcode 9 --print-limit 20 \
    "$BIN/satlab_gpu_tests" --gtest_filter='Sat.Float*'
done
grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -2
echo "device-floatsat2: status $status" | tee -a "$LOG"
exit $status
