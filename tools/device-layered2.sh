#!/usr/bin/env bash
# The layered DoF mode's second speed round (issue 13, docs/performance.md "Issue 13's speed work, second
# round"): the DoF and SAT GPU tests (bit-identical to the CPU, sat_tiled's RGBA16 tables included), the
# pipeline rows of every DoF mode at 3840x2160 (bench-dof.json: bench/results/h200-dof.json), `satlab verify
# --families sat` (sat_tiled takes RGBA16) and compute-sanitizer memcheck and racecheck of the changed
# kernels at small sizes. Everything under $OUT (log.txt and the JSON).
#   tools/device-layered2.sh BIN_DIR
# BIN_DIR holds satlab and satlab_gpu_tests (stripped sm_90 builds of this branch).
# The session's three calls ran earlier forms of this script, which also benched the build before the round
# and candidate settings through environment variables since removed (SATLAB_DOF_TABLES, _COMPOSITE, _SKIP,
# _INDEX; their numbers are in docs/performance.md), and `satlab bench sat --dof-modes` rows of a few modes.
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=/usr/local/cuda/bin/compute-sanitizer
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log
  local limit=$1
  shift
  timeout "$limit" "$@" >> "$LOG" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG" || true
step "GPU tests: DoF modes, pipeline, SAT builders (RGBA16 included)"
run 200 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*:GpuPipeline*:Sat.*:SatCheck.*'
grep -E '^\[  FAILED|^\[  PASSED' "$LOG" | tail -5
step "bench sat --pipeline-only: every DoF mode at 3840x2160"
run 120 "$BIN/satlab" bench sat --pipeline-only --json "$OUT/bench-dof.json"
grep -E 'pipeline\.dof[a-z_]*\.(frame|dof\.|layers|coc)' "$LOG" | tail -30
step "bench sat_tiled at 3840x2160: u8, rgba8, rgba16"
run 60 "$BIN/satlab" bench sat --no-blur --sizes 3840x2160 --variants sat_tiled
grep -E '^sat_tiled' "$LOG" | tail -3
step "satlab verify --families sat"
run 120 "$BIN/satlab" verify --families sat
grep -E '^(ok|FAIL) +sat' "$LOG" | tail -10
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool: DoF modes and sat_tiled's RGBA16 (small sizes)"
  SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 SATLAB_TEST_SAT_ONLY=sat_tiled run 150 $SAN --tool $tool \
    --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*:Sat.Rgba16*'
  grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -1
done
echo "device-layered2: status $status" | tee -a "$LOG"
exit $status
