#!/usr/bin/env bash
# The GPU checks of the aperture kernel's change (docs/quality.md, "The aperture kernel"): one device call
# (< 300 s), logs and JSON under $OUT.
#   tools/device-aperture.sh BIN_DIR
# BIN_DIR holds satlab and satlab_gpu_tests (stripped copies of a CUDA build for sm_90), run as
# tools/device-session.sh says. The new tables change no kernel, only what they read:
#   1. the GPU tests of every shaped mode, spread and highlights (GPU = CPU bit for bit on fresh inputs);
#   2. `satlab quality` on both backends, every case and mode, highlights off and on: equal scores;
#   3. `bench sat --pipeline-only`: every DoF mode at 3840x2160 against bench/results/h200-*.json (predicted:
#      the gather modes a little faster, at most 7 rectangles per aperture instead of 8; spread about the
#      same or a little faster, 10.73 instead of 11.29 merged rectangles per pixel on the bench frame);
#   4. compute-sanitizer memcheck on the spread and highlight tests (their windows hold the new shapes).
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
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
step "GPU tests: shaped modes, spread, highlights"
run 120 aperture.log "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofModes.*:GpuDofSpread.*:GpuHighlights.*:HighlightSplatGl.*'
grep -E '^\[  FAILED|Failure' "$OUT/aperture.log" | head -20
step "satlab quality, CPU and GPU backends, every case and mode, highlights off and on"
run 60 aperture.log "$BIN/satlab" quality --backend gpu --highlights off,on --json "$OUT/quality-gpu.json"
run 90 aperture.log "$BIN/satlab" quality --backend cpu --runs 1 --highlights off,on --json "$OUT/quality-cpu.json"
python3 - "$OUT/quality-cpu.json" "$OUT/quality-gpu.json" <<'PY' >> "$OUT/aperture.log" 2>&1 || status=1
import json, sys
def rows(f):
    return {(r["case"], r["mode"], r.get("highlights", False)): r for r in json.load(open(f))["rows"]}
cpu, gpu = rows(sys.argv[1]), rows(sys.argv[2])
both = [k for k in cpu if k in gpu]
bad = [k for k in both if any(cpu[k][m] != gpu[k][m] for m in ("whole", "band"))]
print(f"{len(both)} rows in both, {len(bad)} differing: {bad[:8]}")
sys.exit(1 if bad or not both else 0)
PY
tail -1 "$OUT/aperture.log"
step "bench sat --pipeline-only: every DoF mode at 3840x2160"
run 150 aperture-bench.log "$BIN/satlab" bench sat --pipeline-only --json "$OUT/dof.json"
step "compute-sanitizer memcheck: spread and highlights, small sizes"
SATLAB_TEST_MAX_N=20000 run 100 aperture-memcheck.log /usr/local/cuda/bin/compute-sanitizer --tool memcheck \
  --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofSpread.*:GpuHighlights.*'
echo "device-aperture: status $status"
exit $status
