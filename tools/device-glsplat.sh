#!/usr/bin/env bash
# The GL instanced-quads splat of bokeh highlights (app/gui/highlight_splat_gl.hpp) against the CUDA row
# splat, in one device call: its tests (CPU records -> GL, CUDA records bit for bit, both handovers) and the
# highlight suites, compute-sanitizer memcheck on the records kernel, and `satlab bench sat --pipeline-only`
# (the pipeline rows with highlights on and off, then the highlights_gl.* rows of both paths, same run).
# Needs the .gl debs unpacked and __EGL_VENDOR_LIBRARY_FILENAMES set (docs: /work/shared/DEVICE.md).
#   tools/device-glsplat.sh BIN_DIR
# BIN_DIR holds satlab and satlab_gpu_tests (stripped copies of a CUDA build for sm_90) and git_rev.
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=/usr/local/cuda/bin/compute-sanitizer
LOG="$OUT/glsplat.log"
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log
  local limit=$1
  shift
  timeout "$limit" "$@" >> "$LOG" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$LOG" 2>&1 || true
step "GPU tests: GL splat, highlights, interop"
run 90 "$BIN/satlab_gpu_tests" --gtest_filter='HighlightSplatGl.*:GpuHighlights.*:Interop.*'
step "compute-sanitizer memcheck on the records kernel and the handovers"
run 90 $SAN --tool memcheck --error-exitcode 9 --print-limit 20 \
  "$BIN/satlab_gpu_tests" --gtest_filter='HighlightSplatGl.CudaRecords*'
step "bench sat --pipeline-only: pipeline rows and highlights_gl.* rows, same run"
run 200 "$BIN/satlab" bench sat --pipeline-only --json "$OUT/h200-glsplat.json"
grep -E '^\[  FAILED|ERROR SUMMARY|Failure' "$LOG" | head -30
echo "device-glsplat: status $status" | tee -a "$LOG"
exit $status
