#!/usr/bin/env bash
# One device call for the GPU work of the depth-of-field, highlight and depth issues (../shared/DEVICE.md):
# each part fits one call (< 300 s) and writes its logs and JSON under $OUT.
#   tools/device-session.sh BIN_DIR tests|bench|sanitize|quality|holdout|primitives|layers
# BIN_DIR holds satlab and satlab_gpu_tests (stripped copies of a CUDA build for sm_90). The GL parts (the
# highlights' GL splat test and bench rows) need the .gl debs unpacked and __EGL_VENDOR_LIBRARY_FILENAMES set,
# as DEVICE.md says.
#   tests       every GPU test suite, then `satlab verify` (every family)
#   bench       `bench sat --pipeline-only` (every DoF mode at 3840x2160, the highlights' CUDA and GL splat
#               rows), `bench sat` of sat_tiled's u8/rgba8/rgba16 tables, `bench depth`, `bench stereo`
#   sanitize    compute-sanitizer memcheck and racecheck at small sizes on the DoF modes, spread, highlights,
#               the GL splat's CUDA records, the compaction and sort families, the guided filter, stereo and
#               the SAT builders' float and 16-bit paths (NPP's own kernels left out)
#   quality     `satlab quality --backend gpu` on every case and mode, highlights off and on, compared with
#               the CPU backend's scores in docs/quality/quality-cpu.json (the modes are bit-identical)
#   primitives  tools/device-primitives.sh (issue 14's compaction and sort rows, tests and sanitizers)
#   holdout     renders the held-out ground truth (gen_scene --truth --holdout; BIN_DIR needs gen_scene), then
#               `satlab quality` on it, GPU and CPU backends, highlights off and on; the GPU rows compared with
#               the CPU backend's there and with docs/quality/holdout-cpu.json
#   layers      spread's and layered's 4K frames and GPU quality scores at 6, 7 and 8 depth layers
#               (LAYERS="..." to choose), for comparison with the CPU backend's scores at the same counts
set -u -o pipefail
BIN=${1:?BIN_DIR}
PART=${2:?part}
OUT=${OUT:-device-out}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
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
same_rows() {  # same_rows GPU_JSON CPU_JSON...: every row both have scores the same, whole and band
  python3 - "$@" <<'PY' || status=1
import json, sys
def rows(f):
    return {(r["case"], r["mode"], r.get("highlights", False)): r for r in json.load(open(f))["rows"]}
gpu, fail = rows(sys.argv[1]), False
for f in sys.argv[2:]:
    cpu = rows(f)
    both = [k for k in cpu if k in gpu]
    bad = [k for k in both if any(cpu[k][m] != gpu[k][m] for m in ("whole", "band"))]
    print(f"{f}: {len(both)} rows in both, {len(bad)} differing: {bad[:8]}")
    fail = fail or bool(bad) or not both
sys.exit(1 if fail else 0)
PY
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
case "$PART" in
  tests)
    step "GPU tests, every suite"
    run 420 gpu-tests.log "$BIN/satlab_gpu_tests"
    grep -E '^\[  FAILED|Failure' "$OUT/gpu-tests.log" | head -30
    step "satlab verify"
    run 120 verify.log "$BIN/satlab" verify
    ;;
  bench)
    step "bench sat --pipeline-only: every DoF mode and the highlight rows at 3840x2160"
    run 150 bench.log "$BIN/satlab" bench sat --pipeline-only --json "$OUT/dof.json"
    step "bench sat: sat_tiled's u8, rgba8 and rgba16 tables at 3840x2160"
    run 60 bench.log "$BIN/satlab" bench sat --no-blur --sizes 3840x2160 --variants sat_tiled --json "$OUT/sat-tiled.json"
    step "bench depth: guided filter"
    run 60 bench.log "$BIN/satlab" bench depth --json "$OUT/depth.json"
    step "bench stereo"
    run 60 bench.log "$BIN/satlab" bench stereo --json "$OUT/stereo.json"
    ;;
  sanitize)
    # memcheck in one run; racecheck (far slower) in groups, each with its own time limit, without the 4K tests
    filter='GpuDofModes.*:GpuDofSpread.*:GpuHighlights.*:HighlightSplatGl.*:Compact*:*Sort*:GpuGuided*:GpuStereo*:Sat.*'
    step "compute-sanitizer memcheck on the session's kernels (small sizes)"
    SATLAB_TEST_MAX_N=20000 SATLAB_TEST_OWN_SAT_ONLY=1 run 120 sanitize-memcheck.log $SAN --tool memcheck \
      --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter="$filter"
    for group in 'GpuDofModes.*' 'GpuDofSpread.*' 'GpuHighlights.*:HighlightSplatGl.*:Compact*:*Sort*' \
                 'GpuGuided*' 'GpuStereo*' 'Sat.*'; do
      step "compute-sanitizer racecheck on $group (small sizes)"
      # GpuDofSpread's random inputs take 170 s to over 240 s under racecheck (one run each, the same binary)
      limit=240
      [ "$group" = 'GpuDofSpread.*' ] && limit=330
      SATLAB_TEST_MAX_N=20000 SATLAB_TEST_OWN_SAT_ONLY=1 run $limit sanitize-racecheck.log $SAN --tool racecheck \
        --error-exitcode 9 --print-limit 20 "$BIN/satlab_gpu_tests" --gtest_filter="$group:-*FourK*"
    done
    ;;
  layers)
    for L in ${LAYERS:-6 7 8}; do
      step "bench sat --pipeline-only: spread and layered at $L depth layers"
      run 120 layers.log "$BIN/satlab" bench sat --pipeline-only --dof-modes spread layered --layers "$L" \
        --json "$OUT/dof-layers-$L.json"
      step "satlab quality, GPU backend, spread and layered at $L depth layers"
      run 120 layers.log "$BIN/satlab" quality --backend gpu --modes spread,layered --layers "$L" \
        --json "$OUT/quality-gpu-layers-$L.json"
    done
    ;;
  quality)
    step "satlab quality, GPU backend, every mode, highlights off and on"
    run 240 quality.log "$BIN/satlab" quality --backend gpu --highlights off,on --json "$OUT/quality-gpu.json"
    step "the GPU scores against the CPU backend's (docs/quality/quality-cpu.json)"
    same_rows "$OUT/quality-gpu.json" "$ROOT/docs/quality/quality-cpu.json"
    ;;
  holdout)
    step "the held-out ground truth, rendered here"
    mkdir -p "$OUT/holdout"
    run 480 holdout.log "$BIN/gen_scene" --truth "$OUT/holdout" --holdout
    step "satlab quality on it, GPU and CPU backends"
    run 120 holdout.log "$BIN/satlab" quality --backend gpu --highlights off,on --cases "$OUT/holdout/cases.json" \
      --json "$OUT/holdout-gpu.json"
    run 120 holdout.log "$BIN/satlab" quality --backend cpu --highlights off,on --cases "$OUT/holdout/cases.json" \
      --json "$OUT/holdout-cpu.json"
    step "the GPU scores against the CPU backend's, here and committed"
    same_rows "$OUT/holdout-gpu.json" "$OUT/holdout-cpu.json" "$ROOT/docs/quality/holdout-cpu.json"
    (cd "$OUT/holdout" && sha256sum *.png | sort -k2) > "$OUT/holdout-sha256.txt"  # as docs/quality/holdout-sha256.txt
    rm -f "$OUT"/holdout/*.png
    ;;
  primitives)
    exec "$ROOT/tools/device-primitives.sh" "$BIN"
    ;;
  *)
    echo "unknown part '$PART'" >&2
    exit 2
    ;;
esac
echo "device-session $PART: status $status"
exit $status
