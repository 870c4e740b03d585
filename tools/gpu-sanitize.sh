#!/usr/bin/env bash
# compute-sanitizer's four tools over the whole GPU test suite at small sizes (docs/reliability.md):
# memcheck (with leak check), racecheck, initcheck and synccheck, run side by side on the one GPU.
#   tools/gpu-sanitize.sh [BIN_DIR]        BIN_DIR holds satlab_gpu_tests; logs go to $OUT (./sanitize-out)
# SATLAB_TEST_MAX_N (default 320000) caps every test's element or pixel count: reductions and scans up to
# 1025 elements, SATs up to 509x263, pipeline frames up to 641x479. TOOLS picks tools (default all four);
# LIMIT_S bounds each tool's (shard's) wall time (default 450 s; a run cut short is reported as such).
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
# racecheck is by far the slowest: it runs as RACE_SHARDS gtest shards side by side (default 6); the
# other tools as one process each. A tool's row below sums its shards.
RACE_SHARDS=${RACE_SHARDS:-6}
pids=()
for tool in $TOOLS; do
  shards=1; [ "$tool" = racecheck ] && shards=$RACE_SHARDS
  for ((k = 0; k < shards; ++k)); do
    (
      start=$(date +%s)
      # racecheck leaves NPP (the external SAT baseline) out: its hazards are NPP's own and it is slow there
      own=0; [ "$tool" = racecheck ] && own=1
      GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$k SATLAB_TEST_OWN_SAT_ONLY=$own timeout "$LIMIT_S" \
        $SAN --tool "$tool" ${extra[$tool]} --error-exitcode 9 --print-limit 100 \
        "$BIN/satlab_gpu_tests" --gtest_filter="$FILTER" >"$OUT/sanitize-$tool.$k.log" 2>&1
      echo "$? $(( $(date +%s) - start ))" >"$OUT/sanitize-$tool.$k.rc"
    ) &
    pids+=($!)
  done
done
wait "${pids[@]}"

status=0
printf '%-10s %5s %7s %8s %8s %8s  %s\n' tool exit seconds passed failed skipped summary
for tool in $TOOLS; do
  cat "$OUT"/sanitize-$tool.*.log >"$OUT/sanitize-$tool.log"
  rc=0 secs=0 passed=0 failed=0 skipped=0 summary=""
  for r in "$OUT"/sanitize-$tool.*.rc; do
    read -r k_rc k_secs <"$r"
    [ "$k_rc" = 0 ] || rc=$k_rc
    ((k_secs > secs)) && secs=$k_secs
  done
  for log in "$OUT"/sanitize-$tool.[0-9]*.log; do
    p=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' || true)
    s=$(grep -oE '^\[  SKIPPED \] [0-9]+ test' "$log" | grep -oE '[0-9]+' || true)
    passed=$((passed + ${p:-0})) skipped=$((skipped + ${s:-0}))
    failed=$((failed + $(grep -cE '^\[  FAILED  \] [A-Za-z]' "$log")))
    summary+=$(grep -E '(ERROR|LEAK|RACECHECK|INITCHECK|SYNCCHECK) SUMMARY' "$log" | tail -1 | sed 's/^=* *//')$'\n'
  done
  # identical shard summaries once, with a count when more than one
  summary=$(printf '%s' "$summary" | sort | uniq -c | sed -E 's/^ *1 //; s/^ *([0-9]+) (.*)/\2 (x\1 shards)/' | paste -sd';')
  rm -f "$OUT"/sanitize-$tool.[0-9]*.log "$OUT"/sanitize-$tool.*.rc
  [ "$rc" = 124 ] && summary="cut short after ${LIMIT_S} s; $summary"
  printf '%-10s %5s %7s %8s %8s %8s  %s\n' "$tool" "$rc" "$secs" "$passed" "$failed" "$skipped" "$summary"
  [ "$rc" = 0 ] || status=1
done
# Where hazards or errors were reported: the kernels named, most frequent first.
for tool in $TOOLS; do
  grep -oE '(in|kernel) [A-Za-z_:<>0-9]+\(' "$OUT/sanitize-$tool.log" | sort | uniq -c | sort -rn | head -8 |
    sed "s/^/$tool: /"
done
exit $status
