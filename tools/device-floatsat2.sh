#!/usr/bin/env bash
# Issue 16's guided filter speed (3840x2160 colour <= 1 ms at any radius), third pass, on the device in one
# call: the float SAT and guided GPU tests (GPU = CPU within the bounds), the guided filter's bench (stage
# times, both radii) and its JSON (h200-depth.json), `satlab verify --families sat`, and
# compute-sanitizer memcheck + racecheck of the float tiles and the guided kernels at small sizes (the
# guided bench at 132x67 (raw copies, vector loads of group 3, a last tile of 4 pixels) and 131x67 (register loads), one
# run each: the gtest sweep runs hundreds of filters and did not finish under racecheck). MODE=ab adds
# the A/B rows of this pass's bench-only switches (since removed: docs/performance.md has their numbers).
#   tools/device-floatsat2.sh BIN_DIR        (BIN_DIR holds satlab and satlab_gpu_tests)
set -u -o pipefail
BIN=${1:?BIN_DIR}
OUT=${OUT:-device-out}
MODE=${MODE:-final}
mkdir -p "$OUT"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
SAN=${SAN:-/usr/local/cuda/bin/compute-sanitizer}
LOG="$OUT/floatsat2.log"
status=0
step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT CMD...: output appended to the log
  local limit=$1
  shift
  timeout "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$LOG" || true

if [ "$MODE" = ab ]; then
  step "A/B: guided 3840x2160, both radii (SATLAB_SAT_LB2D_INPLACE, SATLAB_GUIDED_AB)"
  for pass in 1 2; do
    cfgs="def ip0 rawk0 g3s0 g3s0vec0 cw512 prev"
    [ $pass = 2 ] && cfgs="prev def"
    for cfg in $cfgs; do
      case $cfg in
        def) env=() ;;
        ip0) env=(SATLAB_SAT_LB2D_INPLACE=0) ;;
        rawk0) env=(SATLAB_SAT_LB2D_RAWK=0) ;;
        g3s0) env=(SATLAB_GUIDED_AB=g3s=0) ;;
        g3s0vec0) env=(SATLAB_GUIDED_AB=g3s=0,vec1=0) ;;
        cw512) env=(SATLAB_GUIDED_AB=cw512) ;;
        prev) env=(SATLAB_SAT_LB2D_INPLACE=0 SATLAB_SAT_LB2D_RAWK=0 SATLAB_GUIDED_AB=g3s=0,vec1=0) ;;
      esac
      echo "-- ab $cfg pass $pass" >>"$LOG"
      run 20 env ${env[@]+"${env[@]}"} "$BIN/satlab" bench depth --runs 40
    done
  done
  step "A/B: a stage per build (phases), default and previous"
  echo "-- ab phases def" >>"$LOG"
  run 20 env SATLAB_GUIDED_AB=phases "$BIN/satlab" bench depth --runs 40
  echo "-- ab phases g3s0" >>"$LOG"
  run 20 env SATLAB_GUIDED_AB=phases,g3s=0 "$BIN/satlab" bench depth --runs 40
  echo "-- ab phases prev" >>"$LOG"
  run 20 env SATLAB_GUIDED_AB=phases,g3s=0,vec1=0 SATLAB_SAT_LB2D_INPLACE=0 SATLAB_SAT_LB2D_RAWK=0 "$BIN/satlab" bench depth --runs 40
  step "bench depth (the defaults)"
  run 30 "$BIN/satlab" bench depth --json "$OUT/h200-depth.json"
fi

step "GPU tests: float SATs and the guided filter"
run 100 "$BIN/satlab_gpu_tests" --gtest_filter='Sat.Float*:Sat.LookBack*:GpuGuidedFilter.*'
grep -E '^\[  (PASSED|FAILED|SKIPPED) |Failure|^guided 3840|sat_lookback_2d .*x4: ' "$LOG" | head -30

small="--sizes 132x67 131x67 --radii 2 40 --runs 1 --warmup 0"
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool: the guided filter's kernels and float tiles (small sizes)"
  run $([ $tool = racecheck ] && echo 70 || echo 40) $SAN --tool $tool --error-exitcode 9 --print-limit 20 "$BIN/satlab" bench depth $small
done
grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -4

if [ "$MODE" != ab ]; then
  step "bench depth"
  run 30 "$BIN/satlab" bench depth --json "$OUT/h200-depth.json"
fi
step "satlab verify --families sat"
run 40 "$BIN/satlab" verify --families sat
tail -3 "$LOG"
echo "device-floatsat2: status $status" | tee -a "$LOG"
exit $status
