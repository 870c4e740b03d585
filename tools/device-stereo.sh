#!/usr/bin/env bash
# The GPU work of the stereo matcher (gpu/depth/stereo*.cu), in one call: its GPU = CPU tests,
# compute-sanitizer memcheck and racecheck on small sizes, and `satlab bench stereo` (3840x2160, 128
# disparities; once with the default SAT builder, then every 8-bit builder side by side). Logs and JSON
# go to $OUT (default ./device-out).
#   tools/device-stereo.sh [BIN_DIR]        (BIN_DIR holds satlab and satlab_gpu_tests)
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
status=0
step() { echo "== $1"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true

step "GPU tests (stereo)"
"$BIN/satlab_gpu_tests" --gtest_filter='GpuStereo*' 2>&1 | tee "$OUT/stereo-tests.log" |
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure|Expected|Which is' | head -60
grep -q '^\[  PASSED' "$OUT/stereo-tests.log" && ! grep -qE '^\[  (FAILED|SKIPPED)' "$OUT/stereo-tests.log" || status=1

# Small sizes only (random pairs up to 320k pixels x disparities; the fixed small cases run whole). Of
# the stereo kernels only the aggregation uses shared memory (the right winners' atomicMin), so racecheck
# watches it and the SAT builder under it: the random-pair test (the default builder) is enough there;
# memcheck runs every stereo test.
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool (stereo, small sizes)"
  filter='GpuStereo*'
  [ $tool = racecheck ] && filter='GpuStereo.MatchesTheCpuBitForBitOnRandomPairsAtOddSizes'
  SATLAB_TEST_MAX_N=320000 SATLAB_TEST_OWN_SAT_ONLY=1 timeout 450 $SAN --tool $tool --error-exitcode 9 \
    --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter="$filter" >"$OUT/stereo-sanitizer-$tool.log" 2>&1
  rc=$?
  tail -3 "$OUT/stereo-sanitizer-$tool.log"
  [ $rc -eq 0 ] || { echo "$tool: exit $rc"; status=1; }
done

step "satlab depth stereo (CLI, GPU backend, the script test's pair)"
SATLAB_STEREO_BACKEND=gpu bash tests/scripts/cli_depth_stereo.sh "$BIN/satlab" . >"$OUT/stereo-cli.log" 2>&1 ||
  { cat "$OUT/stereo-cli.log"; status=1; }

step "satlab bench stereo 3840x2160, 128 disparities"
"$BIN/satlab" bench stereo --runs 20 --json "$OUT/h100-stereo.json" 2>&1 | tee "$OUT/stereo-bench.log" || status=1
# Every registered 8-bit SAT builder under the cost slices, one run each (a builder that fails is reported
# and the rest still run).
for b in $("$BIN/satlab" variants 2>/dev/null | awk '$1 == "sat" && $2 ~ /^sat_/ {print $2}'); do
  "$BIN/satlab" bench stereo --runs 10 --sat-builders "$b" --json "$OUT/h100-stereo-$b.json" 2>&1 |
    tee -a "$OUT/stereo-bench-builders.log" | grep -E '^stereo|satlab:' || status=1
done
echo "device-stereo: status $status"
exit $status
