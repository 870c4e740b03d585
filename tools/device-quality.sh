#!/usr/bin/env bash
# `satlab quality` on the GPU machine: every DoF mode on the committed ground truth with GPU (CUDA-event)
# timings, the crops for docs/quality.md, and the same on the CPU backend (the scores must agree within
# the modes' stated bounds). Optionally (DENSE=1) re-renders the ground truth with 24 x 24 lens samples
# on the machine's cores first, to measure how much of the score is the reference's sampling grain.
# Logs, JSON and crops go to $OUT (default ./device-out).
#   tools/device-quality.sh [BIN_DIR]      (BIN_DIR holds satlab and gen_scene)
set -u -o pipefail
BIN=${1:-build-gpu-h3/bin}
OUT=${OUT:-device-out}
mkdir -p "$OUT/quality-crops"
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
status=0
step() { echo "== $1"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true

step "satlab quality, GPU backend (committed ground truth)"
"$BIN/satlab" quality --backend gpu --json "$OUT/quality-gpu.json" --crops "$OUT/quality-crops" \
  2>&1 | tee "$OUT/quality-gpu.log" || status=1

step "satlab quality, CPU backend (same cases)"
"$BIN/satlab" quality --backend cpu --json "$OUT/quality-cpu.json" 2>&1 | tee "$OUT/quality-cpu.log" || status=1

if [ "${DENSE:-0}" = 1 ] && [ -x "$BIN/gen_scene" ]; then
  step "ground truth with 24 x 24 lens samples (noise floor of the committed 16 x 16)"
  mkdir -p "$OUT/truth-dense"
  ( time "$BIN/gen_scene" --truth "$OUT/truth-dense" --lens 24 ) 2>&1 | tee "$OUT/truth-dense.log" || status=1
  "$BIN/satlab" quality --backend gpu --cases "$OUT/truth-dense/cases.json" --json "$OUT/quality-gpu-dense.json" \
    2>&1 | tee "$OUT/quality-gpu-dense.log" || status=1
fi
echo "device-quality: status $status"
exit $status
