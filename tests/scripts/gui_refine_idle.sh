#!/usr/bin/env bash
# A refined depth is refined once: with a depth map smaller than the image (auto: a refiner) and no input,
# a scripted run of several frames runs the refiner and the pipeline once, not at every frame (the edit's
# "strokes changed" mark, left set without strokes, once made every frame an edit).
# Usage: gui_refine_idle.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_scene
need_python3 "to write the depth map and read the timings"
python3 - "$src/assets/default_depth.png" "$tmp/small_depth.png" <<'PY' || skip "python3 cannot write the depth map"
import struct, sys, zlib
w, h = 64, 36  # a phone-sized map: a fraction of the scene's size
rows = b"".join(b"\0" + bytes((40 + (x * 3 + y * 2)) % 256 for x in range(w)) for y in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[2], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY
mkdir -p "$tmp/export"
headless --size 800x450 --backend cpu --frames 6 "$src/assets/default.png" --depth "$tmp/small_depth.png" \
  --export "$tmp/export" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "the scripted run failed"; }
python3 - "$tmp/export" <<'PY' || fail "the refined depth was applied again without input"
import glob, json, sys
j = json.load(open(sorted(glob.glob(sys.argv[1] + "/*_timings.json"))[-1]))
runs = j["pipeline_runs"]
print(f"pipeline runs in 6 frames: {runs}")
assert runs == 1, f"{runs} pipeline runs in 6 frames without input"
PY
echo "PASS: a refined depth is refined and filtered once"
