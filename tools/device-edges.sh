#!/usr/bin/env bash
# One device call (< 300 s) for the spread mode's extended frame edges (issue 13; core/dof_spread_pixel.hpp,
# dof::outside; gpu/filter/dof_spread.cu: the border tiles' virtual pixels): the GPU = CPU tests of the DoF
# modes, spread and the highlights, `satlab bench sat --pipeline-only --dof-modes spread` (3840x2160) of the
# binary before the change (BEFORE, main's) and after, twice each in the same run (before, after, before,
# after), `satlab quality --backend gpu --modes gather_box,spread` against the CPU backend's scores of the same
# binary (BIN_DIR/quality-cpu.json when shipped, else run here), then compute-sanitizer memcheck (images up to
# 20000 pixels) and racecheck (up to 5000: the thin and odd frames, all border tiles) on GpuDofSpread.
# Logs and JSON go to $OUT.
#   tools/device-edges.sh BIN_DIR [BEFORE]
# BIN_DIR holds satlab and satlab_gpu_tests (stripped copies of a CUDA build for sm_90); BEFORE a satlab
# built from the commit before the change (default BIN_DIR/satlab_main; its bench rows are skipped when
# absent). HighlightSplatGl needs the .gl debs unpacked and __EGL_VENDOR_LIBRARY_FILENAMES set (DEVICE.md).
set -u -o pipefail
BIN=${1:?BIN_DIR}
BEFORE=${2:-$BIN/satlab_main}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
LOG="$OUT/edges.log"
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log, its tail shown
  local limit=$1
  shift
  timeout "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  tail -3 "$LOG"
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$LOG" || true

step "GPU tests (DoF modes, spread, highlights)"
run 100 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofSpread.*:GpuDofModes.*:GpuHighlights.*:HighlightSplatGl.*'
grep -E '^\[  (FAILED|SKIPPED) |Failure|first difference' "$LOG" | head -20

step "bench sat --pipeline-only --dof-modes spread, 3840x2160: before, after, before, after"
for i in 1 2; do
  if [ -x "$BEFORE" ]; then run 40 "$BEFORE" bench sat --pipeline-only --dof-modes spread --json "$OUT/spread-before-$i.json"; fi
  run 40 "$BIN/satlab" bench sat --pipeline-only --dof-modes spread --json "$OUT/spread-after-$i.json"
done

step "quality: spread on the GPU against the CPU backend (bit-identical modes: the same scores)"
if [ -f "$BIN/quality-cpu.json" ]; then cp "$BIN/quality-cpu.json" "$OUT/quality-cpu.json"
else run 60 "$BIN/satlab" quality --backend cpu --runs 1 --modes gather_box,spread --json "$OUT/quality-cpu.json"; fi
run 60 "$BIN/satlab" quality --backend gpu --runs 1 --modes gather_box,spread --json "$OUT/quality-gpu.json"
python3 - "$OUT/quality-cpu.json" "$OUT/quality-gpu.json" <<'PY' 2>&1 | tee -a "$LOG" || status=1
import json, sys
def rows(f):
    return {(r["case"], r["mode"]): r for r in json.load(open(f))["rows"]}
cpu, gpu = rows(sys.argv[1]), rows(sys.argv[2])
both = [k for k in cpu if k in gpu]
bad = [k for k in both if any(cpu[k][m] != gpu[k][m] for m in ("whole", "band"))]
print(f"{len(both)} rows in both, {len(bad)} differing: {bad[:8]}")
sys.exit(1 if bad or not both else 0)
PY

for tool in memcheck racecheck; do
  step "compute-sanitizer $tool on GpuDofSpread (small sizes)"
  max=20000
  [ $tool = racecheck ] && max=5000
  SATLAB_TEST_MAX_N=$max SATLAB_TEST_OWN_SAT_ONLY=1 run 150 $SAN --tool $tool \
    --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter='GpuDofSpread.*'
done

grep -E 'spread|^== ' "$LOG" | grep -v '^\[' | tail -30
echo "device-edges: status $status" | tee -a "$LOG"
exit $status
