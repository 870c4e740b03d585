#!/usr/bin/env bash
# The layered DoF mode's second speed round (issue 13, docs/performance.md "Issue 13's speed work, second
# round"): the DoF and SAT GPU tests (bit-identical to the CPU, the new RGBA16 tables included), the DoF
# pipeline rows at 3840x2160, compute-sanitizer memcheck and racecheck of the changed kernels at small sizes,
# and `satlab verify --families sat` (sat_tiled takes RGBA16). Everything under $OUT (log.txt and JSON).
#   tools/device-layered2.sh BIN_DIR [tune|final] [BASE_DIR]
# BIN_DIR holds satlab and satlab_gpu_tests (stripped sm_90 builds of this branch); BASE_DIR, when given, a
# satlab built before this round, benched in the same run. `tune` (the first call; the switches it benched
# are gone since, their numbers in the docs) benched the tuning switches (SATLAB_DOF_TABLES=8: two RGBA8
# tables per layer; SATLAB_DOF_COMPOSITE=minblocksN; SATLAB_DOF_SKIP=0) first and ran the DoF tests under
# each; `final`
# writes bench-dof.json (bench/results/h200-dof.json).
set -u -o pipefail
BIN=${1:?BIN_DIR}
PART=${2:-final}
BASE=${3:-}
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
rows() { grep -E 'pipeline\.dof[a-z_]*\.(frame|dof\.|layers|coc)' "$LOG" | tail -"$1"; }
tests() {
  step "GPU tests: DoF modes, pipeline, SAT builders (RGBA16 included)"
  run 200 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*:GpuPipeline*:Sat.*:SatCheck.*'
  grep -E '^\[  FAILED|^\[  PASSED' "$LOG" | tail -5
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG" || true
if [ "$PART" = tune ]; then
  if [ -n "$BASE" ]; then
    step "bench, the build before this round (every DoF mode)"
    run 120 "$BASE/satlab" bench sat --pipeline-only --json "$OUT/bench-base.json"
    rows 40
  fi
  for s in "" "SATLAB_DOF_SKIP=0" "SATLAB_DOF_COMPOSITE=minblocks6" \
           "SATLAB_DOF_COMPOSITE=minblocks6 SATLAB_DOF_SKIP=0" "again" "SATLAB_DOF_COMPOSITE=minblocks6"; do
    step "bench layered, gather_linear, gather_shape, gather_box: ${s:-this build}"
    [ "$s" = again ] && s=""
    run 60 env $s "$BIN/satlab" bench sat --pipeline-only --dof-modes layered gather_linear gather_shape gather_box
    rows 30
  done
  step "bench sat_tiled at 3840x2160: u8, rgba8, rgba16"
  run 60 "$BIN/satlab" bench sat --no-blur --sizes 3840x2160 --variants sat_tiled
  grep -E '^sat_tiled' "$LOG" | tail -4
  tests
  for s in "SATLAB_DOF_TABLES=8" "SATLAB_DOF_SKIP=0" "SATLAB_DOF_COMPOSITE=minblocks6"; do
    step "GPU DoF tests with $s"
    run 60 env $s SATLAB_TEST_MAX_N=2000000 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*'
    grep -E '^\[  FAILED|^\[  PASSED' "$LOG" | tail -2
  done
  step "compute-sanitizer memcheck: DoF modes (small sizes)"
  SATLAB_TEST_MAX_N=40000 run 150 $SAN --tool memcheck --error-exitcode 9 --print-limit 20 \
    "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*'
  grep -E 'ERROR SUMMARY' "$LOG" | tail -1
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
  if [ -n "$NCU" ]; then
    step "ncu: the layered composite's stall reasons (one launch)"
    run 120 "$NCU" --kernel-name regex:composite_kernel --launch-skip 3 --launch-count 1 \
      --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section SpeedOfLight \
      "$BIN/satlab" bench sat --pipeline-only --dof-modes layered --runs 20 --warmup 0
  fi
  echo "device-layered2: status $status" | tee -a "$LOG"
  exit $status
fi
tests
for s in "SATLAB_DOF_TABLES=8" "SATLAB_DOF_INDEX=64"; do
  step "GPU DoF tests with $s"
  run 60 env $s "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*:GpuPipeline*'
  grep -E '^\[  FAILED|^\[  PASSED' "$LOG" | tail -2
done
step "bench sat --pipeline-only: every DoF mode at 3840x2160"
run 120 "$BIN/satlab" bench sat --pipeline-only --json "$OUT/bench-dof.json"
rows 60
step "bench sat --pipeline-only with SATLAB_DOF_INDEX=64 (64-bit tap indices: the A/B)"
run 120 env SATLAB_DOF_INDEX=64 "$BIN/satlab" bench sat --pipeline-only --json "$OUT/bench-dof-idx64.json"
rows 60
for s in "SATLAB_DOF_INDEX=64" "" "SATLAB_DOF_INDEX=64" ""; do
  step "bench layered, gather_linear, gather_shape: ${s:-this build}"
  run 60 env $s "$BIN/satlab" bench sat --pipeline-only --dof-modes layered gather_linear gather_shape
  rows 20
done
step "satlab verify --families sat"
run 120 "$BIN/satlab" verify --families sat
tail -12 "$LOG" | grep -E 'sat_|FAIL|ok' | tail -10
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool: DoF modes and sat_tiled's RGBA16 (small sizes)"
  SATLAB_TEST_MAX_N=40000 SATLAB_TEST_OWN_SAT_ONLY=1 SATLAB_TEST_SAT_ONLY=sat_tiled run 150 $SAN --tool $tool \
    --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*:Sat.Rgba16*'
  grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -1
done
echo "device-layered2: status $status" | tee -a "$LOG"
exit $status
