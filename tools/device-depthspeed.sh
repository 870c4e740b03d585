#!/usr/bin/env bash
# The GPU work of issue 16's speed targets (guided filter <= 1 ms, stereo <= 10 ms at 3840x2160 / 128
# disparities), in one call: the guided and stereo GPU tests; `satlab depth stereo` on the GPU against the
# CPU's maps of tools/stereo_bench.py's pairs (when BIN_DIR/pairs holds them: NAME_left/right.png and
# NAME-fill|no-fill-cpu.png from `satlab depth stereo --backend cpu --max-disparity 63`); the guided filter
# under every float SAT builder; the bench JSON (h200-depth.json, h200-stereo.json); compute-sanitizer
# memcheck + racecheck of the guided and stereo kernels at small sizes. (The session's A/B runs of the
# candidate kernels used bench-only switches since removed: docs/performance.md has their numbers.)
# Logs and JSON go to $OUT (default device-out).
#   tools/device-depthspeed.sh BIN_DIR      (BIN_DIR holds satlab and satlab_gpu_tests)
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=${SAN:-/usr/local/cuda/bin/compute-sanitizer}
LOG="$OUT/depthspeed.log"
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log, its tail shown
  local limit=$1
  shift
  timeout "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$LOG" || true

step "GPU tests: guided filter and stereo"
run 200 "$BIN/satlab_gpu_tests" --gtest_filter='GpuGuidedFilter.*:GpuStereo*'
grep -E '^\[  (PASSED|FAILED|SKIPPED) |Failure|^guided ' "$LOG" | head -40

if [ -d "$BIN/pairs" ]; then  # tools/gen_stereo's pairs and the CPU maps (made where the binaries were built)
  step "satlab depth stereo on the GPU = the CPU's maps (tools/stereo_bench.py's pairs)"
  for s in default occlusion; do
    for v in fill no-fill; do
      extra=""
      [ $v = no-fill ] && extra=--no-fill
      run 60 "$BIN/satlab" depth stereo "$BIN/pairs/${s}_left.png" "$BIN/pairs/${s}_right.png" --max-disparity 63 \
        --backend gpu $extra --out "$OUT/${s}-$v-gpu.png"
      if cmp -s "$OUT/${s}-$v-gpu.png" "$BIN/pairs/${s}-$v-cpu.png"; then echo "$s $v: GPU map = CPU map" | tee -a "$LOG"
      else echo "$s $v: GPU map differs from the CPU's" | tee -a "$LOG"; status=1; fi
      rm -f "$OUT/${s}-$v-gpu.png"
    done
  done
fi

step "guided: the float SAT builders, 3840x2160 colour, radius 8"
for b in sat_lookback_2d sat_single_pass sat_rows_columns sat_rows_transpose_shuffle sat_rows_transpose_cub; do
  echo "-- builder $b" >>"$LOG"
  run 60 "$BIN/satlab" bench depth --sizes 3840x2160 --radii 8 --sat-builder "$b"
done
step "bench depth and stereo"
run 90 "$BIN/satlab" bench depth --json "$OUT/h200-depth.json"
run 90 "$BIN/satlab" bench stereo --runs 20 --json "$OUT/h200-stereo.json"
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool: guided and stereo kernels (small sizes)"
  SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 run 150 $SAN --tool $tool --error-exitcode 9 \
    --print-limit 20 "$BIN/satlab_gpu_tests" \
    --gtest_filter='GpuGuidedFilter.*:GpuStereo.MatchesTheCpu*:-GpuGuidedFilter.FourK*'
done
grep -E '^stereo |ERROR SUMMARY|RACECHECK SUMMARY|guided\.(colour|gray) ' "$LOG" | tail -40
echo "device-depthspeed: status $status" | tee -a "$LOG"
exit $status
