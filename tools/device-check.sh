#!/usr/bin/env bash
# Everything that needs the GPU machine, in one call (see ../shared/DEVICE.md): the GPU tests, the
# sanitizers on small sizes of every reduction and scan variant, `satlab verify` and the primitives
# benchmark. Logs and JSON go to $OUT (default ./device-out).
#   tools/device-check.sh [BIN_DIR] [quick|full]      (BIN_DIR holds satlab and satlab_gpu_tests)
# quick: bench at 2^22 and 2^28 only; full: the whole size sweep, int32, plus float at 2^22 and 2^28.
set -u -o pipefail
BIN=${1:-build-gpu-h3/bin}
MODE=${2:-quick}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=/usr/local/cuda/bin/compute-sanitizer
status=0
step() { echo "== $1"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true

step "GPU tests (reduction and scan variants)"
"$BIN/satlab_gpu_tests" --gtest_filter='*ReduceVariant*:*ScanVariant*:ReduceCheck*:ScanCheck*' \
  2>&1 | tee "$OUT/gpu-tests.log" | grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure|refuses' | head -60 || status=1
grep -q '^\[  PASSED' "$OUT/gpu-tests.log" && ! grep -q '^\[  FAILED' "$OUT/gpu-tests.log" || status=1

for tool in memcheck racecheck; do
  step "compute-sanitizer $tool, n <= 1025"
  SATLAB_TEST_MAX_N=1025 $SAN --tool $tool --error-exitcode 9 --print-limit 20 \
    "$BIN/satlab_gpu_tests" --gtest_filter='*ReduceVariant*:*ScanVariant*' > "$OUT/sanitizer-$tool.log" 2>&1
  rc=$?
  tail -3 "$OUT/sanitizer-$tool.log"
  [ $rc -eq 0 ] || { echo "$tool: exit $rc"; status=1; }
done

step "satlab verify"
"$BIN/satlab" verify 2>&1 | tee "$OUT/verify.log" | tail -30 || status=1

step "satlab bench primitives ($MODE)"
if [ "$MODE" = full ]; then
  "$BIN/satlab" bench primitives --json "$OUT/h100-primitives.json" > "$OUT/bench.log" 2>&1 || status=1
  "$BIN/satlab" bench primitives --dtypes f32 --sizes 2^22 2^28 --json "$OUT/h100-primitives-f32.json" \
    > "$OUT/bench-f32.log" 2>&1 || status=1
else
  "$BIN/satlab" bench primitives --sizes 2^22 2^28 --json "$OUT/h100-primitives.json" > "$OUT/bench.log" 2>&1 || status=1
fi
grep -vE '^\s*$' "$OUT/bench.log" | tail -70
echo "device-check: status $status"
exit $status
