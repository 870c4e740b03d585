#!/usr/bin/env bash
# One device call for a session's GPU work (../shared/DEVICE.md): the whole GPU test suite, then the
# benchmarks of the new work, each step under its own time limit so the call fits the per-call limit.
# Everything goes under $OUT.
#   tools/device-session.sh BIN_DIR tests|bench|sanitize|screens
# BIN_DIR holds satlab and satlab_gpu_tests (stripped copies of a CUDA build for sm_90).
set -u -o pipefail
BIN=${1:?BIN_DIR}
PART=${2:?part}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=/usr/local/cuda/bin/compute-sanitizer
status=0
step() { echo "== $1 ($(date +%T))"; }
run() {  # run LIMIT LOG CMD...: a step's output to LOG, its tail shown
  local limit=$1 log=$2
  shift 2
  timeout "$limit" "$@" > "$OUT/$log" 2>&1
  local rc=$?
  tail -4 "$OUT/$log"
  [ $rc -eq 0 ] || { echo "exit $rc: $*"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
case "$PART" in
  tests)
    step "GPU tests, every suite"
    run 420 gpu-tests.log "$BIN/satlab_gpu_tests"
    grep -E '^\[  FAILED|Failure' "$OUT/gpu-tests.log" | head -30
    step "satlab verify"
    run 120 verify.log "$BIN/satlab" verify
    ;;
  bench)
    step "bench sat: blur and pipeline rows, every DoF mode at 3840x2160"
    run 150 bench-dof.log "$BIN/satlab" bench sat --pipeline-only --json "$OUT/h100-dof.json"
    step "bench primitives: compaction and radix sort"
    run 150 bench-primitives.log "$BIN/satlab" bench primitives --families compact sort --json "$OUT/h100-primitives-compact-sort.json"
    step "bench depth: guided filter"
    run 90 bench-depth.log "$BIN/satlab" bench depth --json "$OUT/h100-depth.json"
    step "bench stereo"
    run 90 bench-stereo.log "$BIN/satlab" bench stereo --json "$OUT/h100-stereo.json"
    ;;
  sanitize)
    for tool in memcheck racecheck; do
      step "compute-sanitizer $tool on the new kernels (small sizes)"
      # NPP's own kernels (reached through the stereo test's every-builder loop) are left out.
      SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 run 200 "sanitize-$tool.log" $SAN --tool $tool --error-exitcode 9 --print-limit 20 \
        "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*:*Compact*:*Sort*:GpuGuided*:GpuStereo*'
    done
    ;;
esac
echo "device-session $PART: status $status"
exit $status
