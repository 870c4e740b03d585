#!/usr/bin/env bash
# The compaction and sort families on the GPU machine in one call: their GPU tests, compute-sanitizer
# memcheck and racecheck on small sizes (several tiles, so the look-backs and the tile counters run),
# `satlab verify` (every family; its compact and sort lines shown), the bench rows of issue 14 (compaction
# 2^26 int32 keeping 10%, sort 2^24 key-value pairs, plus 2^20 of each) with own/CUB ratios, and the Lab's
# tables. Logs and JSON go to $OUT (default ./device-out).
#   tools/device-primitives.sh [BIN_DIR]      (BIN_DIR holds satlab and satlab_gpu_tests; default build-gpu/bin)
set -u -o pipefail
BIN=${1:-build-gpu/bin}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
FILTER='*CompactVariant*:*SortVariant*:OnesweepSort.*:CompactSinglePass.*:CompactCheck.*:SortCheck.*'
status=0
step() { echo "== $1"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true

step "GPU tests ($FILTER)"
timeout 600 "$BIN/satlab_gpu_tests" --gtest_filter="$FILTER" > "$OUT/primitives-gpu-tests.log" 2>&1 || status=1
grep -E '^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|refuses' "$OUT/primitives-gpu-tests.log" | head -60
grep -q '^\[  PASSED' "$OUT/primitives-gpu-tests.log" && ! grep -q '^\[  FAILED' "$OUT/primitives-gpu-tests.log" || status=1

# Our kernels only (CUB's are left out): memcheck at n <= 20000 (five sort tiles, three compaction tiles), racecheck, the
# slow one, at n <= 9000 (three sort tiles, two compaction tiles); the first-poll pause forced on so the compaction's look-back sleeps
# are covered too.
OWN="$FILTER-*cub_*"
for run in "memcheck 20000" "racecheck 9000"; do
  set -- $run
  step "compute-sanitizer $1, n <= $2"
  SATLAB_TEST_MAX_N=$2 SATLAB_SCAN_FIRST_POLL_NS=500 timeout 400 $SAN --tool $1 --error-exitcode 9 \
    --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter="$OWN" > "$OUT/primitives-sanitizer-$1.log" 2>&1
  rc=$?
  grep -E '^\[  (PASSED|FAILED) |SUMMARY' "$OUT/primitives-sanitizer-$1.log" | tail -4
  [ $rc -eq 0 ] || { echo "$1: exit $rc"; status=1; }
done

step "satlab verify --families compact sort"
timeout 300 "$BIN/satlab" verify --families compact sort > "$OUT/primitives-verify.log" 2>&1 || status=1
cat "$OUT/primitives-verify.log"

step "satlab bench primitives --families compact sort"
"$BIN/satlab" bench primitives --families compact --sizes 2^20 2^26 --json "$OUT/h100-primitives-compact.json" \
  > "$OUT/primitives-bench-compact.log" 2>&1 || status=1
"$BIN/satlab" bench primitives --families sort --sizes 2^20 2^24 --json "$OUT/h100-primitives-sort.json" \
  > "$OUT/primitives-bench-sort.log" 2>&1 || status=1
grep -vE '^\s*$' "$OUT/primitives-bench-compact.log" "$OUT/primitives-bench-sort.log" | sed 's/^[^:]*://'
python3 - "$OUT/h100-primitives-compact.json" "$OUT/h100-primitives-sort.json" <<'PY' || status=1
import json, sys
targets = [("compact", 1 << 26, "cub_select", 0.9), ("sort", 1 << 24, "cub_sort_pairs", 0.7)]
rows = []
for f in sys.argv[1:]:
    try:
        rows += json.load(open(f))["rows"]
    except (OSError, ValueError) as e:
        print(f"no results in {f}: {e}")
for fam, n, cub, target in targets:
    at = {r["variant"]: r for r in rows if r["family"] == fam and r["n"] == n and r.get("median_ms")}
    if cub not in at:
        print(f"{fam} n={n}: no {cub} row")
        continue
    for name, r in at.items():
        if name == cub:
            continue
        ratio = at[cub]["median_ms"] / r["median_ms"]
        print(f"{fam} n={n}: {name} {r['median_ms']:.4f} ms = {ratio:.2f}x {cub} ({at[cub]['median_ms']:.4f} ms)"
              f"{'  (target >= %.1fx)' % target if 'cub' not in name else ''}")
PY

step "Lab tables (headless)"
for lab in compact:22 sort:22; do
  timeout 120 "$BIN/satlab" --headless --size 800x600 --frames 2 --lab $lab > "$OUT/primitives-lab-${lab%%:*}.log" 2>&1 ||
    status=1
  grep -A8 'satlab: lab:' "$OUT/primitives-lab-${lab%%:*}.log"
done
echo "device-primitives: status $status"
exit $status
