#!/usr/bin/env bash
# One device call for the camera response (Params::response_shoulder, issue 13): the GPU DoF, spread and
# highlight equality tests (they run plain sRGB and s = 0.4, the second with only the response changed, so the
# tables' re-upload is tested), memcheck on them at small sizes, and `satlab quality` on both backends at the
# manifest's shoulder (0.4) and at --response-shoulder 0: the GPU's scores must equal the CPU's.
#   tools/device-response.sh BIN_DIR      (BIN_DIR: stripped satlab and satlab_gpu_tests, as device-session.sh)
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
  timeout "$limit" "$@" >> "$OUT/$log" 2>&1
  local rc=$?
  tail -4 "$OUT/$log"
  [ $rc -eq 0 ] || { echo "exit $rc: $*"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
filter='GpuDofModes.BitIdenticalToTheCpuReference:GpuDofSpread.*:GpuHighlights.*'
step "GPU equality tests, shoulder 0 and 0.4"
run 150 response-tests.log "$BIN/satlab_gpu_tests" --gtest_filter="$filter"
grep -E '^\[  FAILED|Failure' "$OUT/response-tests.log" | head -20
step "compute-sanitizer memcheck (small sizes)"
SATLAB_TEST_MAX_N=20000 SATLAB_TEST_OWN_SAT_ONLY=1 run 100 response-memcheck.log $SAN --tool memcheck \
  --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter="$filter"
for s in manifest 0; do
  opt=()
  [ "$s" = manifest ] || opt=(--response-shoulder "$s")
  for backend in gpu cpu; do
    step "satlab quality --backend $backend, shoulder $s, highlights off and on"
    run 90 response-quality.log "$BIN/satlab" quality --backend $backend --runs 1 --highlights off,on "${opt[@]}" \
      --json "$OUT/quality-$backend-$s.json"
  done
  python3 - "$OUT/quality-cpu-$s.json" "$OUT/quality-gpu-$s.json" <<'PY' || status=1
import json, sys
def rows(f):
    return {(r["case"], r["mode"], r["highlights"]): r for r in json.load(open(f))["rows"]}
cpu, gpu = rows(sys.argv[1]), rows(sys.argv[2])
both = [k for k in cpu if k in gpu]
bad = [k for k in both if any(cpu[k][m] != gpu[k][m] for m in ("whole", "band"))]
print(f"{sys.argv[2]}: {len(both)} rows in both, {len(bad)} differing from the CPU's: {bad[:8]}")
sys.exit(1 if bad or not both else 0)
PY
done
exit $status
