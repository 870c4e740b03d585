#!/usr/bin/env bash
# A short soak on the CPU backend: frames with changing filters, parameters and image sizes (seven
# sizes, 15 frames each, all seen before measuring starts at frame 105, all seen again while measuring)
# must not grow host memory by more than a few MB. With fewer frames a size, measuring starts before the
# random parameters have met their extremes (at 10 a size, RSS still rose 20 MB: growth, not a leak).
. "$(dirname "$0")/lib/common.sh"
need_scene
frames=210 every=15 drift=8
if sanitized; then
  # ASan keeps freed blocks in quarantine and its allocator caches by design, so RSS drift says nothing
  # there: the sanitizer build runs each size once, 8 frames (box and dof filters on most), for memory
  # errors and leaks; the ci build checks drift.
  frames=56 every=8 drift=100000
  echo "NOTE: sanitizer build: memory drift not checked here (ASan quarantine), only errors and leaks"
fi
out=$("$bin" soak --frames $frames --resize-every $every --max-drift-mb $drift --backend cpu 2>&1) ||
  { echo "$out"; fail soak; }
echo "$out"
echo "$out" | grep -q "\"frames\": $frames" || fail "no result line"
# The CPU backend's timings are of the run just made: every frame's are counted, each once.
echo "$out" | grep -q "\"timed_frames\": $frames," || fail "not every frame's timings counted once"
