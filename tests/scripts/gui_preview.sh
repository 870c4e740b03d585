#!/usr/bin/env bash
# The preview of a frame that misses the frame budget (Session::update, core/preview.hpp), on the CPU
# backend with the default DoF mode and a generated 3000 x 2000 image (1500 x 1000 under the sanitizers,
# where its full frames took most of a minute), headless, its slider dragged by
# --input-script (the synthetic gradient: a photo without depth opens sharp): the first view is a preview
# too (its full frame estimated over Session::kFirstViewMs), the full frame following on the worker thread;
# every frame of the drag is a preview of fewer pixels than
# the window has, whose pipeline time (warm runs, against the full frame's in the same process: median under
# a twentieth of it, none over a fifth; no absolute time, so that a loaded or sanitised build passes) is far
# below the full frame's; the
# release starts the full frame on the worker thread, and the full frame is shown (by the last frame at
# the latest, which waits for it). Held until the last frame, the drag leaves a preview on screen; in
# continuous mode ("run every frame") there is no preview at all.
# Usage: gui_preview.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the image and read the frame log"
IW=3000 IH=2000
sanitized && IW=1500 IH=1000
W=1600 H=900 budget=50  # AppState::kFrameBudgetMs: a full frame within it is never previewed
python3 - "$tmp/big.bmp" $IW $IH <<'PY' || fail "could not write the test image"
# IW x IH blocks of random colours with bright edges (24-bit BMP, bottom-up rows).
import random, struct, sys
w, h, block = int(sys.argv[2]), int(sys.argv[3]), 100
stride = (w * 3 + 3) & ~3
rows = {}
with open(sys.argv[1], "wb") as f:
    f.write(b"BM" + struct.pack("<IHHI", 54 + stride * h, 0, 0, 54))
    f.write(struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, stride * h, 2835, 2835, 0, 0))
    for y in reversed(range(h)):
        key = (y // block, y % block < 3)
        if key not in rows:
            r = random.Random(key[0])
            cells = [bytes((250, 250, 250) if key[1] else (r.randrange(40, 255), r.randrange(40, 255), r.randrange(40, 255))) * min(block, w - x)
                     for x in range(0, w, block)]
            rows[key] = b"".join(cells) + b"\0" * (stride - 3 * w)
        f.write(rows[key])
PY
run() {  # run NAME FRAMES SCRIPT_LINES... : a headless CPU run of the big image with that input script
  local name=$1 frames=$2
  shift 2
  printf '%s\n' "$@" >"$tmp/$name.txt"
  headless --backend cpu --synthetic-depth gradient --size ${W}x${H} --frames "$frames" --input-script "$tmp/$name.txt" \
    --screenshot "$tmp/$name.png" "$tmp/big.bmp" >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "run '$name' failed"; }
}
# The focus slider of the Filter panel sits at y = 263, from x = 1181 to 1456 (a 1600 x 900 window); the
# drag presses at focus 0.2 and moves 8 px a frame for 20 frames, then lets go at frame 24.
drag=("2 move 1240 263" "3 down")
for f in $(seq 4 23); do drag+=("$f move $((1240 + (f - 3) * 8)) 263"); done
run drag 40 "${drag[@]}" "24 up" "25 move 600 -1000"
python3 - "$tmp/drag.log" $budget $W $H ${IW}x$IH <<'PY'
import re, statistics, sys
log, budget, window_px = open(sys.argv[1]).read(), float(sys.argv[2]), int(sys.argv[3]) * int(sys.argv[4])
size = sys.argv[5]
frames = {int(m.group(1)): m.group(2) for m in re.finditer(r"^satlab: frame (\d+): (.*)$", log, re.M)}
first = [f for f in sorted(frames) if "first view" in frames[f]]
assert first and "first view (a preview)" in frames[first[0]], f"the first view is not a preview: {frames}"
full = re.search(rf"full {size} done, ([\d.]+) ms", " ".join(frames[f] for f in sorted(frames)))
assert full, f"no full frame done: {frames}"
full_ms = float(full.group(1))
if full_ms <= budget:
    print(f"the full frame took {full_ms:.1f} ms, within the budget: nothing to preview here")
    sys.exit(77)
previews = {}
for f in range(4, 24):  # each move of the drag
    m = re.match(rf"preview (\d+)x(\d+) of {size} \(level (\d)\), ([\d.]+) ms( cold)?", frames.get(f, ""))
    assert m, f"frame {f} of the drag is not a preview: {frames.get(f)!r}"
    previews[f] = (float(m.group(4)), bool(m.group(5)), f"{m.group(1)}x{m.group(2)}")
    assert int(m.group(1)) * int(m.group(2)) <= window_px, f"frame {f}: a preview larger than the window"
warm = [ms for ms, cold, _ in previews.values() if not cold]
assert len(warm) >= 10, f"only {len(warm)} warm previews of 20"
print(f"drag: 20 previews ({', '.join(sorted({s for _, _, s in previews.values()}))}), warm pipeline ms "
      f"median {statistics.median(warm):.1f}, max {max(warm):.1f}; the full frame took {full_ms:.1f} ms")
assert statistics.median(warm) <= full_ms / 20, f"the previews' median {statistics.median(warm):.1f} ms is over a twentieth of the full frame's"
assert max(warm) <= full_ms / 5, f"a preview took {max(warm):.1f} ms, over a fifth of the full frame's"
started = [f for f, n in frames.items() if f"full {size} started on the worker thread" in n and f >= 4]
shown = [f for f, n in frames.items() if re.search(rf"full {size} done, [\d.]+ ms, shown", n)]
# The first view's full frame may still run at the release: the next starts when it is collected.
busy = any("full" in frames[f] and "done" in frames[f] for f in frames if 4 <= f < 24) is False
assert started and (min(started) == 24 or (busy and min(started) > 24)), \
    f"the release (frame 24) did not start the full frame: {started}"
assert shown and min(shown) >= 24, f"no full frame shown after the release: {frames}"
assert not [f for f in frames if f > 24 and "preview" in frames[f]], "a preview after the release"
print(f"release: the full frame started at frame {min(started)} on the worker thread, shown at frame {min(shown)}")
PY
rc=$?
[ $rc -eq 77 ] && skip "the full frame fits the budget on this machine"
[ $rc -eq 0 ] || { cat "$tmp/drag.log"; fail "the drag's frames"; }
# Still held at the last frame: the preview is what is on screen, and no full frame starts after the press
# (frame 3; the first view's, started at frame 1, may still run).
run hold 14 "${drag[@]:0:12}"
grep -q "^satlab: frame 13: preview " "$tmp/hold.log" || { cat "$tmp/hold.log"; fail "no preview at the held last frame"; }
grep -qE "^satlab: frame ([3-9]|1[0-9]): .*full ${IW}x$IH started" "$tmp/hold.log" &&
  { cat "$tmp/hold.log"; fail "a full frame started while held"; }
[ -s "$tmp/hold.png" ] || fail "no screenshot of the held preview"
# Continuous mode times the full frame: every frame a full one, no preview.
headless --backend cpu --synthetic-depth gradient --size ${W}x${H} --frames 2 --continuous "$tmp/big.bmp" >"$tmp/cont.log" 2>&1 ||
  { cat "$tmp/cont.log"; fail "the continuous run failed"; }
[ "$(grep -c "^satlab: frame [0-9]*: full ${IW}x$IH" "$tmp/cont.log")" -eq 2 ] || { cat "$tmp/cont.log"; fail "continuous: not 2 full frames"; }
grep -q "preview" "$tmp/cont.log" && { cat "$tmp/cont.log"; fail "continuous mode previewed"; }
echo "gui_preview: all checks passed"
