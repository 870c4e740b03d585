#!/usr/bin/env bash
# The GPU work of bokeh highlights (core/highlights.hpp, gpu/filter/highlights.cu) in one device call:
# the GPU tests that touch it, compute-sanitizer memcheck and racecheck on its kernels (small sizes), the
# 3840x2160 pipeline rows with highlights on (64k and 16k lights) and off in the same run, and
# `satlab quality` with highlights off and on. Everything goes under $OUT.
#   tools/device-highlights.sh BIN_DIR
# BIN_DIR holds satlab and satlab_gpu_tests (stripped copies of a CUDA build for sm_90) and git_rev.
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=/usr/local/cuda/bin/compute-sanitizer
LOG="$OUT/highlights.log"
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log, its tail shown
  local limit=$1
  shift
  timeout "$limit" "$@" >> "$LOG" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$LOG" 2>&1 || true
step "GPU tests: highlights, pipeline, DoF modes"
run 80 "$BIN/satlab_gpu_tests" --gtest_filter='GpuHighlights.*:GpuPipeline*:GpuDofModes.*'
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool on the highlight kernels (small sizes)"
  SATLAB_TEST_MAX_N=40000 run $([ $tool = memcheck ] && echo 50 || echo 60) $SAN --tool $tool --error-exitcode 9 --print-limit 20 \
    "$BIN/satlab_gpu_tests" --gtest_filter='GpuHighlights.*'
done
step "bench sat --pipeline-only: every DoF mode at 3840x2160, highlights on and off"
run 70 "$BIN/satlab" bench sat --pipeline-only --json "$OUT/h200-highlights.json"
step "quality: gather_linear and layered, highlights off and on"
run 30 "$BIN/satlab" quality --backend gpu --modes gather_linear,layered --highlights off,on --runs 5 \
  --json "$OUT/quality-highlights-gpu.json"
grep -E '^\[  FAILED|ERROR SUMMARY|Failure' "$LOG" | head -30
echo "device-highlights: status $status" | tee -a "$LOG"
exit $status
