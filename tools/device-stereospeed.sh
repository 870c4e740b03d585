#!/usr/bin/env bash
# One device call (< 240 s) for the stereo matcher's box-rows table (gpu/depth/stereo.cu, box_rows_kernel +
# aggregate_kernel<RowBoxes>, the default) against the registered SAT path (sat_lookback_2d, 4 taps per box):
# the GPU = CPU tests, `satlab bench stereo` (3840x2160, 128 disparities) of both in the same run, with and
# without the wide window, `depth stereo --backend gpu` byte-identical to the CPU on the generated pairs,
# then compute-sanitizer memcheck and racecheck at small sizes. Logs and JSON go to $OUT (default ./device-out).
#   tools/device-stereospeed.sh BIN_DIR [PAIRS_DIR]
# BIN_DIR holds satlab and satlab_gpu_tests (stripped copies of a CUDA build for sm_90); PAIRS_DIR the
# pairs of `tools/gen_stereo PAIRS_DIR --ss 2` (docs/quality.md, Stereo), skipped when not given.
set -u -o pipefail
BIN=${1:?BIN_DIR}
PAIRS=${2:-}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
LOG="$OUT/stereospeed.log"
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log, its tail shown
  local limit=$1
  shift
  timeout "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  tail -3 "$LOG"
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$LOG" || true

step "GPU tests (stereo)"
run 90 "$BIN/satlab_gpu_tests" --gtest_filter='GpuStereo*'
grep -E '^\[  (FAILED|SKIPPED) |Failure' "$LOG" | head -20

B="$BIN/satlab bench stereo --runs 20"
step "bench stereo 3840x2160, 128 disparities: box rows (default) and the SAT path, same run"
run 60 $B --sat-builders box_rows sat_lookback_2d --json "$OUT/stereo.json"
step "bench stereo: no wide window (--wide 0), both"
run 60 $B --wide 0 --sat-builders box_rows sat_lookback_2d --json "$OUT/stereo-nowide.json"

if [ -n "$PAIRS" ]; then
  step "depth stereo: GPU output byte-identical to the CPU's on the generated pairs"
  for scene in default occlusion; do
    for b in cpu gpu; do
      "$BIN/satlab" depth stereo "$PAIRS/${scene}_left.png" "$PAIRS/${scene}_right.png" --max-disparity 63 \
        --backend $b --out "$OUT/$scene-$b.png" >>"$LOG" 2>&1 || status=1
    done
    if cmp "$OUT/$scene-cpu.png" "$OUT/$scene-gpu.png"; then echo "$scene: identical" | tee -a "$LOG"
    else echo "$scene: DIFFERENT" | tee -a "$LOG"; status=1; fi
    rm -f "$OUT/$scene-cpu.png" "$OUT/$scene-gpu.png"
  done
fi

# Small sizes; racecheck on the random pairs (every window shape, widths of whole 16-column groups: the box
# rows' warp totals in shared memory, the right winners' atomicMin) and the several-stacks test.
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool (stereo, small sizes)"
  filter='GpuStereo*'
  [ $tool = racecheck ] &&
    filter='GpuStereo.MatchesTheCpuBitForBitOnRandomPairsAtOddSizes:GpuStereo.MatchesTheCpuOnAPairWithKnownDisparityAcrossSeveralStacks'
  SATLAB_TEST_MAX_N=220000 SATLAB_TEST_OWN_SAT_ONLY=1 run 70 $SAN --tool $tool \
    --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter="$filter"
done

grep -E '^stereo|^  [a-z]|^== bench' "$LOG" | tail -30
echo "device-stereospeed: status $status" | tee -a "$LOG"
exit $status
