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
    # First call (results in docs/performance.md): P1 against the build before it, P2 and P3.
    [ -x "$BIN/satlab_base" ] && SATLAB_BENCH_BIN=satlab_base bench base
    bench perlayer
    ;;
  final)
    # Second call: the candidates P4 (SATLAB_DOF_CROP) and P5 (SATLAB_DOF_COMPOSITE), each tested
    # bit-identical to the CPU and benched in the same run; then the sanitizers.
    for c in unroll2 merge merge_unroll2 merge_unroll2_hoist minblocks5; do
      step "GPU DoF tests, cropped tables, composite $c"
      run 120 env SATLAB_DOF_CROP=1 SATLAB_DOF_COMPOSITE=$c "$BIN/satlab_gpu_tests" --gtest_filter="$tests"
    done
    bench perlayer
    bench merge_unroll2_hoist SATLAB_DOF_COMPOSITE=merge_unroll2_hoist
    bench crop SATLAB_DOF_CROP=1
    for c in unroll2 merge merge_unroll2 merge_unroll2_hoist minblocks5; do
      bench "crop-$c" SATLAB_DOF_CROP=1 SATLAB_DOF_COMPOSITE=$c
    done
    for tool in memcheck racecheck; do
      for crop in 0 1; do
        step "compute-sanitizer $tool, DoF modes (small sizes), SATLAB_DOF_CROP=$crop"
        SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 SATLAB_DOF_CROP=$crop SATLAB_DOF_COMPOSITE=$([ $crop = 1 ] && echo merge_unroll2) \
          run 100 $SAN --tool $tool --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*'
        grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -1
      done
    done
    ;;
esac
grep -E '^\[  FAILED|Failure|PASSED' "$LOG" | head -20
# At most 8 files come back from a call: the bench rows in one archive.
(cd "$OUT" && ls bench-*.json > /dev/null 2>&1 && tar czf bench-json.tgz bench-*.json && rm -f bench-*.json)
echo "device-dofspeed $PART: status $status" | tee -a "$LOG"
exit $status
