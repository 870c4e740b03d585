#!/usr/bin/env bash
# The GPU work of issue 16's speed targets (guided filter <= 1 ms, stereo <= 10 ms at 3840x2160 / 128
# disparities), in one call: the guided and stereo GPU tests, then
#   ab      A/B timings of the candidate kernels in one run (SATLAB_STEREO_AB: cost0 = the previous
#           cost kernel, agg0 = the previous aggregate + check; SATLAB_GUIDED_AB=serial: the stack's SATs
#           one after the other), the `satlab bench` rows of the kept kernels, memcheck at small sizes
#   final   the kept kernels' bench JSON (h200-depth.json, h200-stereo.json) and compute-sanitizer
#           memcheck + racecheck of the guided and stereo kernels at small sizes
# Logs and JSON go to $OUT (default device-out).
#   tools/device-depthspeed.sh BIN_DIR ab|final     (BIN_DIR holds satlab and satlab_gpu_tests)
set -u -o pipefail
BIN=${1:?BIN_DIR}
PART=${2:-final}
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
for v in agg_b1 agg_b8 cost0+agg0; do
  echo "-- stereo tests, SATLAB_STEREO_AB=$v" >>"$LOG"
  SATLAB_STEREO_AB=$v run 60 "$BIN/satlab_gpu_tests" --gtest_filter='GpuStereo.MatchesTheCpu*'
done
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

case "$PART" in
  ab)
    step "stereo A/B, 3840x2160, 128 disparities"
    for v in cost0+agg0 agg0 cost0 new; do
      echo "-- SATLAB_STEREO_AB=$v" >>"$LOG"
      SATLAB_STEREO_AB=$v run 60 "$BIN/satlab" bench stereo --runs 20 --json "$OUT/stereo-${v//+/-}.json"
    done
    step "guided A/B, 3840x2160, radius 8 and 32"
    for v in serial side; do
      echo "-- SATLAB_GUIDED_AB=$v" >>"$LOG"
      SATLAB_GUIDED_AB=$v run 60 "$BIN/satlab" bench depth --sizes 3840x2160 --radii 8 32 --json "$OUT/guided-$v.json"
    done
    step "compute-sanitizer memcheck (small sizes)"
    SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 run 150 $SAN --tool memcheck --error-exitcode 9 \
      --print-limit 20 "$BIN/satlab_gpu_tests" \
      --gtest_filter='GpuGuidedFilter.*:GpuStereo.MatchesTheCpu*:-GpuGuidedFilter.FourK*'
    ;;
  final)
    step "stereo A/B, 3840x2160, 128 disparities (cost0+agg0: the previous kernels)"
    for v in cost0+agg0 agg_b1 new agg_b8; do
      echo "-- SATLAB_STEREO_AB=$v" >>"$LOG"
      SATLAB_STEREO_AB=$v run 60 "$BIN/satlab" bench stereo --runs 20 --json "$OUT/stereo-ab-${v//+/-}.json"
    done
    step "guided: every float SAT builder, 3840x2160 colour, radius 8"
    for b in sat_lookback_2d sat_single_pass sat_rows_columns sat_rows_transpose_shuffle sat_rows_transpose_cub; do
      echo "-- builder $b" >>"$LOG"
      run 60 "$BIN/satlab" bench depth --sizes 3840x2160 --radii 8 --sat-builder "$b"
    done
    step "bench depth and stereo (kept kernels)"
    run 90 "$BIN/satlab" bench depth --json "$OUT/h200-depth.json"
    run 90 "$BIN/satlab" bench stereo --runs 20 --json "$OUT/h200-stereo.json"
    for tool in memcheck racecheck; do
      step "compute-sanitizer $tool: guided and stereo kernels (small sizes)"
      SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 run 150 $SAN --tool $tool --error-exitcode 9 \
        --print-limit 20 "$BIN/satlab_gpu_tests" \
        --gtest_filter='GpuGuidedFilter.*:GpuStereo.MatchesTheCpu*:-GpuGuidedFilter.FourK*'
    done
    ;;
esac
grep -E '^stereo |ERROR SUMMARY|RACECHECK SUMMARY|guided\.(colour|gray) ' "$LOG" | tail -40
echo "device-depthspeed $PART: status $status" | tee -a "$LOG"
exit $status
