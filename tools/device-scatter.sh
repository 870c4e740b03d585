#!/usr/bin/env bash
# The spread DoF mode's GPU work in one device call: its GPU tests (and the DoF modes' suite, which runs it
# as a shaped mode), compute-sanitizer memcheck and racecheck on its kernels at small sizes, the 4K bench
# rows of every DoF mode (with the spread stage's phases), and `satlab quality` on the GPU backend (scores
# must equal the CPU backend's; GPU ms per case). Everything goes under $OUT.
#   tools/device-scatter.sh BIN_DIR      (BIN_DIR holds satlab and satlab_gpu_tests, a CUDA build for sm_90)
set -u -o pipefail
BIN=${1:?BIN_DIR}
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
step "GPU tests: spread and the DoF modes"
run 90 gpu-tests.log "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofSpread.*:GpuDofModes.*'
grep -E '^\[  FAILED|Failure' "$OUT/gpu-tests.log" | head -30
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool on the spread kernels (small sizes)"
  SATLAB_TEST_MAX_N=20000 SATLAB_TEST_OWN_SAT_ONLY=1 run 60 "sanitize-$tool.log" $SAN --tool $tool --error-exitcode 9 \
    --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofSpread.*'
done
step "bench sat --pipeline-only: every DoF mode at 3840x2160"
run 90 bench-dof.log "$BIN/satlab" bench sat --pipeline-only --json "$OUT/h200-dof-spread.json"
step "satlab quality, GPU backend"
run 60 quality-gpu.log "$BIN/satlab" quality --backend gpu --cases "${SATLAB_ASSETS:-assets}/ground_truth/cases.json" \
  --json "$OUT/quality-gpu.json"
echo "device-scatter: status $status"
exit $status
