#!/usr/bin/env bash
# The spread mode's second speed pass (docs/performance.md, "The spread mode", "Second pass"): its GPU tests
# (bit-identical to the CPU reference), the pipeline rows of every DoF mode at 3840x2160 (bench-dof.json:
# bench/results/h200-dof-spread.json), compute-sanitizer memcheck and racecheck of the spread kernels at
# small sizes, and `satlab quality --backend gpu` on spread against the CPU backend's scores
# (docs/quality/quality-cpu.json). Everything under $OUT (log.txt, JSON).
#   tools/device-spreadspeed2.sh BIN_DIR
# BIN_DIR holds satlab and satlab_gpu_tests (sm_90 builds). The pass's two device calls also benched
# candidate settings through environment variables since removed (SATLAB_SPREAD_FILL, SATLAB_SPREAD_MERGE,
# SATLAB_SPREAD_PRIORITY) and the build before the pass; their numbers are in docs/performance.md.
# QUALITY_CPU_JSON: the CPU scores to compare with (default: the checkout's docs/quality/quality-cpu.json).
set -u -o pipefail
BIN=${1:?BIN_DIR}
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
spread_rows() {  # the spread rows of a bench JSON
  python3 - "$1" <<'PY' 2>&1 | tee -a "$LOG"
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    if r["variant"].startswith("pipeline.dof_spread.") or r["variant"] == "pipeline.dof_layered.dof":
        print(f'  {r["variant"]:45s} {r["median_ms"]:.4f}')
PY
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG" || true
step "GPU tests: spread and the DoF modes"
run 150 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofSpread.*:GpuDofModes.*'
grep -E '^\[  FAILED|^\[  PASSED|Failure' "$LOG" | tail -5
step "bench sat --pipeline-only: every DoF mode at 3840x2160 (default settings)"
run 90 "$BIN/satlab" bench sat --pipeline-only --json "$OUT/bench-dof.json"
spread_rows "$OUT/bench-dof.json"
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool, spread (small sizes)"
  SATLAB_TEST_MAX_N=20000 SATLAB_TEST_OWN_SAT_ONLY=1 run 100 $SAN --tool $tool --error-exitcode 9 --print-limit 20 \
    "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofSpread.*'
  grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -1
done
step "satlab quality, GPU backend, spread (scores must equal docs/quality/quality-cpu.json's)"
run 120 "$BIN/satlab" quality --backend gpu --modes spread --json "$OUT/quality-gpu-spread.json"
CPU_JSON=${QUALITY_CPU_JSON:-$(git -C "$BIN" rev-parse --show-toplevel 2>/dev/null || echo ../..)/docs/quality/quality-cpu.json}
python3 - "$CPU_JSON" "$OUT/quality-gpu-spread.json" <<'PY' 2>&1 | tee -a "$LOG" || status=1
import json, sys
rows = lambda f: {r["case"]: r for r in json.load(open(f))["rows"] if r["mode"] == "spread"}
cpu, gpu = rows(sys.argv[1]), rows(sys.argv[2])
bad = [c for c in cpu if c not in gpu or any(cpu[c][k] != gpu[c][k] for k in ("whole", "band"))]
print(f"quality, spread: {len(gpu)} GPU cases, {len(cpu)} CPU cases, {len(bad)} differing: {bad}")
sys.exit(1 if bad or not cpu else 0)
PY
echo "device-spreadspeed2: status $status" | tee -a "$LOG"
exit $status
