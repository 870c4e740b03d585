#!/usr/bin/env bash
# The SAT and blur checks on the GPU machine in one call: GPU tests (SAT variants, blur, pipeline),
# compute-sanitizer memcheck and racecheck on small sizes, then `satlab bench sat` (all sizes, or the
# ones given) with the tuning knobs' alternatives. Logs and JSON go to $OUT.
#   tools/device-check-sat.sh BIN_DIR [bench|quick|none]
#   tools/device-check-sat.sh BIN_DIR variant NAME: the tests, the sanitizers on NAME alone, `satlab render`
#     with NAME against the CPU backend, and NAME's bench rows beside sat_tiled, CUB and NPP.
set -u -o pipefail
BIN=${1:?BIN_DIR}
MODE=${2:-bench}
ONLY=${3:-}
[ "$MODE" = variant ] && : "${ONLY:?variant NAME}"
OUT=${OUT:-device-out}
mkdir -p "$OUT"
# The commit the JSON records: the GPU machine's copy of the tree has no current git HEAD, so BIN_DIR/git_rev
# (written beside the binaries: git rev-parse --short HEAD > BIN_DIR/git_rev) or SATLAB_GIT_REV.
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=/usr/local/cuda/bin/compute-sanitizer
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
FILTER='Sat.*:GpuBlur.*:GpuPipeline.*'
echo "== GPU tests ($FILTER)"
"$BIN/satlab_gpu_tests" --gtest_filter="$FILTER" > "$OUT/gpu-tests.log" 2>&1 || status=1
grep -E '^\[  (PASSED|FAILED|SKIPPED) |Failure|error|max relative' "$OUT/gpu-tests.log" | head -60
for tool in memcheck racecheck; do
  echo "== compute-sanitizer $tool (<= 140000 pixels)"
  SATLAB_TEST_SAT_ONLY=$ONLY SATLAB_TEST_MAX_N=140000 timeout 240 $SAN --tool $tool --error-exitcode 9 --print-limit 20 \
    "$BIN/satlab_gpu_tests" --gtest_filter='Sat.*:GpuBlur.FractionalRadiusIsBit*' > "$OUT/sanitizer-$tool.log" 2>&1
  rc=$?
  tail -4 "$OUT/sanitizer-$tool.log"
  if [ $tool = racecheck ]; then  # NPP's scanRow/scanCol report hazards of their own: only ours count
    ours=$(grep 'Race reported' "$OUT/sanitizer-$tool.log" | grep -vc 'scanRow<\|scanCol<')
    echo "racecheck: $ours hazards in satlab kernels"
    [ "$ours" -eq 0 ] || status=1
  else
    [ $rc -eq 0 ] || { echo "$tool: exit $rc"; status=1; }
  fi
done
case "$MODE" in
  bench)
    echo "== satlab bench sat"
    "$BIN/satlab" bench sat --json "$OUT/h100-sat.json" > "$OUT/bench-sat.log" 2>&1 || status=1
    cat "$OUT/bench-sat.log" ;;
  variant)
    echo "== satlab render --sat-builder $ONLY vs the CPU backend"
    for f in dof box; do
      "$BIN/satlab" render assets/default.png --filter $f --backend gpu --sat-builder "$ONLY" -o "$OUT/render-$f-gpu.png" &&
        "$BIN/satlab" render assets/default.png --filter $f --backend cpu -o "$OUT/render-$f-cpu.png" &&
        cmp "$OUT/render-$f-gpu.png" "$OUT/render-$f-cpu.png" && echo "render $f: identical" || { echo "render $f: differs"; status=1; }
    done
    echo "== satlab bench sat ($ONLY, sat_tiled, sat_rows_columns, CUB, NPP)"
    "$BIN/satlab" bench sat --no-blur --phases --variants "$ONLY" sat_tiled sat_rows_columns sat_rows_transpose_cub npp_integral \
      --sizes 1920x1080 3840x2160 4096x4096 4097x3001 8192x8192 16384x16384 --json "$OUT/h100-sat-$ONLY.json" \
      > "$OUT/bench-sat.log" 2>&1 || status=1
    cat "$OUT/bench-sat.log" ;;
  quick)
    echo "== satlab bench sat (quick)"
    "$BIN/satlab" bench sat --sizes 1920x1080 4096x4096 8192x8192 --json "$OUT/h100-sat-quick.json" \
      > "$OUT/bench-sat.log" 2>&1 || status=1
    cat "$OUT/bench-sat.log" ;;
esac
echo "device-check-sat: status $status"
exit $status
