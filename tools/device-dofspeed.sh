#!/usr/bin/env bash
# The DoF speed work's device commands (issue 13, docs/performance.md "Depth-of-field modes"): the DoF GPU
# tests (bit-identical to the CPU, GpuDofModes and GpuPipeline), the pipeline rows of every DoF mode at
# 3840x2160 (bench-dof.json: bench/results/h200-dof.json), and compute-sanitizer memcheck and racecheck of
# the DoF kernels at small sizes. Everything under $OUT (log.txt and the JSON).
#   tools/device-dofspeed.sh BIN_DIR
# BIN_DIR holds satlab and satlab_gpu_tests (stripped sm_90 builds of this branch).
# The session's two calls ran this script's earlier form, which also benched candidate settings through
# environment variables since removed (their numbers are in docs/performance.md).
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
step "GPU DoF tests"
run 150 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*:GpuPipeline*'
grep -E '^\[  FAILED|^\[  PASSED' "$LOG" | tail -5
step "bench sat --pipeline-only: every DoF mode at 3840x2160"
run 90 "$BIN/satlab" bench sat --pipeline-only --json "$OUT/bench-dof.json"
grep -E 'pipeline\.dof[a-z_]*\.(frame|dof\.)' "$LOG" | tail -16
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool, DoF modes (small sizes)"
  SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 run 120 $SAN --tool $tool --error-exitcode 9 --print-limit 20 \
    "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*'
  grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -1
done
echo "device-dofspeed: status $status" | tee -a "$LOG"
exit $status
