#!/usr/bin/env bash
# compute-sanitizer's four tools over the whole GPU test suite at small sizes (docs/reliability.md):
# memcheck (with leak check), racecheck, initcheck and synccheck, run side by side on the one GPU.
#   tools/gpu-sanitize.sh [BIN_DIR]        BIN_DIR holds satlab_gpu_tests; logs go to $OUT (./sanitize-out)
# SATLAB_TEST_MAX_N (default 320000) caps every test's element or pixel count: reductions and scans up to
# 1025 elements, SATs up to 509x263, pipeline frames up to 641x479. TOOLS picks tools (default all four);
# LIMIT_S bounds each tool's wall time (default 450 s; a run cut short is reported as such).
# The test that fills the whole device to provoke a real out-of-memory runs without the sanitizers
# (their own device allocations would change what it measures). Exit 0 when every tool finished and
# reported no error.
set -u -o pipefail
BIN=${1:-build-gpu-c/bin}
OUT=${OUT:-sanitize-out}
SAN=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
TOOLS=${TOOLS:-memcheck racecheck initcheck synccheck}
LIMIT_S=${LIMIT_S:-450}
export SATLAB_TEST_MAX_N=${SATLAB_TEST_MAX_N:-320000}
FILTER='-GpuFaults.ARealOutOfMemory*'
mkdir -p "$OUT"
$SAN --version | tail -1

declare -A extra=([memcheck]="--leak-check full" [racecheck]="--racecheck-report all" [initcheck]="" [synccheck]="")
pids=()
for tool in $TOOLS; do
  (
    start=$(date +%s)
    timeout "$LIMIT_S" $SAN --tool "$tool" ${extra[$tool]} --error-exitcode 9 --print-limit 100 \
      "$BIN/satlab_gpu_tests" --gtest_filter="$FILTER" >"$OUT/sanitize-$tool.log" 2>&1
    echo "$? $(( $(date +%s) - start ))" >"$OUT/sanitize-$tool.rc"
  ) &
  pids+=($!)
done
wait "${pids[@]}"

status=0
printf '%-10s %5s %7s %8s %8s %8s  %s\n' tool exit seconds passed failed skipped summary
for tool in $TOOLS; do
  log=$OUT/sanitize-$tool.log
  read -r rc secs <"$OUT/sanitize-$tool.rc"
  passed=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  failed=$(grep -cE '^\[  FAILED  \] [A-Za-z]' "$log")
  skipped=$(grep -oE '^\[  SKIPPED \] [0-9]+ test' "$log" | grep -oE '[0-9]+' || echo 0)
  summary=$(grep -E '(ERROR|LEAK|RACECHECK|INITCHECK|SYNCCHECK) SUMMARY' "$log" | tail -1 | sed 's/^=* *//')
  [ "$rc" = 124 ] && summary="cut short after ${LIMIT_S} s; $summary"
  printf '%-10s %5s %7s %8s %8s %8s  %s\n' "$tool" "$rc" "$secs" "${passed:-0}" "$failed" "${skipped:-0}" "$summary"
  [ "$rc" = 0 ] || status=1
done
# Where hazards or errors were reported: the kernels named, most frequent first.
for tool in $TOOLS; do
  grep -oE '(in|kernel) [A-Za-z_:<>0-9]+\(' "$OUT/sanitize-$tool.log" | sort | uniq -c | sort -rn | head -8 |
    sed "s/^/$tool: /"
done
exit $status
