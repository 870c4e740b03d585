#!/usr/bin/env bash
# GPU faults end to end (docs/reliability.md), through SATLAB_FAULT (gpu/fault.hpp): a failing frame or
# an out-of-memory makes `satlab render --backend gpu` exit 1 with one line and write nothing; in the
# headless GUI a failing frame switches the session to the CPU backend, the run goes on to its last
# frame there and reports the switch. Needs a CUDA device (skipped otherwise).
# Usage: gui_gpu_fault.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
img=$src/assets/default.png
"$bin" render --image "$img" --filter box --backend gpu --out "$tmp/gpu.png" >/dev/null 2>"$tmp/err" ||
  skip "no GPU backend here: $(cat "$tmp/err")"

for fault in launch:1 alloc:1 alloc:4; do
  SATLAB_FAULT=$fault "$bin" render --image "$img" --depth "$src/assets/default_depth.png" --backend gpu \
    --out "$tmp/f.png" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || { cat "$tmp/err"; fail "SATLAB_FAULT=$fault: render exited $rc, expected 1"; }
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "SATLAB_FAULT=$fault: not one line"; }
  grep -qE "GPU (frame|allocation)" "$tmp/err" || { cat "$tmp/err"; fail "SATLAB_FAULT=$fault: unclear"; }
  [ ! -e "$tmp/f.png" ] || fail "SATLAB_FAULT=$fault: output written"
  echo "render, SATLAB_FAULT=$fault: $(cat "$tmp/err")"
done

# Frame 4 of a continuous run fails on the GPU: the run switches to the CPU and finishes all 20 frames.
SATLAB_FAULT=launch:4 headless --size 640x360 --frames 20 \
  --continuous --backend gpu >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out" "$tmp/err"
[ $rc -eq 1 ] || fail "the scripted run did not report the GPU error (exit $rc)"  # scripted runs report the popup
grep -q "GPU error during a frame (GPU frame: .*); switched to the CPU backend" "$tmp/err" ||
  fail "the switch to the CPU backend was not reported"
grep -qE "^satlab: 20 frames of 1280x720 \(cpu \(" "$tmp/out" || fail "the run did not go on to frame 20 on the CPU"
echo "gui_gpu_fault: all checks passed"
