#!/usr/bin/env bash
# The DoF speed work's device call (issue 13, docs/performance.md "Depth-of-field modes"): the DoF GPU
# tests (bit-identical to the CPU), the pipeline rows of every DoF mode at 3840x2160 for each candidate
# (same run), and compute-sanitizer memcheck/racecheck of the DoF kernels at small sizes. Under $OUT.
#   tools/device-dofspeed.sh BIN_DIR compare|final
# BIN_DIR holds satlab and satlab_gpu_tests (stripped sm_90 builds of this branch) and, for compare,
# satlab_base (the same build before the work) for same-run ratios.
#   compare  tests (default and candidate settings), bench rows of the base build and of every candidate
#   final    tests, bench rows (bench-final.json is bench/results/h200-dof.json), sanitizers
set -u -o pipefail
BIN=${1:?BIN_DIR}
PART=${2:?part}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=/usr/local/cuda/bin/compute-sanitizer
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log, its tail shown
  local limit=$1
  shift
  timeout "$limit" "$@" >> "$LOG" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
bench() {  # bench NAME [ENV=VALUE...]: the pipeline rows under those settings
  local name=$1
  shift
  step "bench $name: $*"
  run 60 env "$@" "$BIN/${SATLAB_BENCH_BIN:-satlab}" bench sat --pipeline-only --json "$OUT/bench-$name.json"
  grep -E 'pipeline\.dof_(gather_linear|layered)\.(frame|dof\.)|pipeline\.dof\.frame' "$LOG" | tail -14
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG" || true
tests='GpuDofModes.*:GpuPipeline*'
step "GPU DoF tests"
run 150 "$BIN/satlab_gpu_tests" --gtest_filter="$tests"
case "$PART" in
  compare)
    step "GPU DoF tests, one-table taps and 16x16 composite blocks"
    run 150 env SATLAB_DOF_COMBINE=1 SATLAB_DOF_BLOCK=16x16 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*'
    [ -x "$BIN/satlab_base" ] && SATLAB_BENCH_BIN=satlab_base bench base
    bench perlayer
    bench combine SATLAB_DOF_COMBINE=1
    bench block16x16 SATLAB_DOF_BLOCK=16x16
    bench block32x4 SATLAB_DOF_BLOCK=32x4
    step "compute-sanitizer memcheck, DoF modes with one-table taps (small sizes)"
    SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 SATLAB_DOF_COMBINE=1 run 90 $SAN --tool memcheck --error-exitcode 9 \
      --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter="GpuDofModes.*"
    ;;
  final)
    bench final
    for tool in memcheck racecheck; do
      step "compute-sanitizer $tool, DoF modes (small sizes)"
      SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 run 120 $SAN --tool $tool --error-exitcode 9 \
        --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*'
      grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$LOG" | tail -3
    done
    ;;
esac
grep -E '^\[  FAILED|Failure|PASSED' "$LOG" | head -20
echo "device-dofspeed $PART: status $status" | tee -a "$LOG"
exit $status
