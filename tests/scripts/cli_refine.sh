#!/usr/bin/env bash
# Depth refiners and the focus range on the command line (issue 34): `satlab render` with a depth file a
# quarter of the bundled scene's size refines it by default (the summary names the refiner) and
# `--refine none` (bilinear) gives another result; a full-size depth file is not refined under auto; a
# preset's refine choice applies; an unknown refiner is a usage error of one line naming the valid ones
# (render, depth refine, depth stereo, the app). `--focus-range 0.5` at focus 0.5 keeps everything sharp
# (the identity); out of [0, 0.5] it is a usage error. On a GPU both give the CPU's bytes.
# Usage: cli_refine.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write a small guide image"
bundled_scene  # 384x216, its depth beside it
depth=$scene_depth low=$((scene_w / 4))x$((scene_h / 4))

# The phone-like depth: the scene's depth at a quarter of each side (96x54), made by satlab itself:
# `depth refine --refine none` resamples the depth to its guide's size, here a flat image of that size.
python3 - "$tmp/guide.png" ${low/x/ } <<'PY'
import struct, sys, zlib
w, h = int(sys.argv[2]), int(sys.argv[3])
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
raw = b"".join(b"\0" + bytes([128, 128, 128] * w) for _ in range(h))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PY
"$bin" depth refine "$tmp/guide.png" --depth "$depth" --refine none --backend cpu --out "$tmp/low.png" \
  >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "depth refine --refine none (downsampling) failed"; }
grep -q "$low from ${scene_w}x$scene_h, refine none" "$tmp/log" || { cat "$tmp/log"; fail "unexpected depth refine summary"; }

render() {  # render OUT ARGS...: the bundled scene, CPU backend; the summary in $tmp/OUT.log
  local out=$1
  shift
  "$bin" render --image "$scene" --backend cpu --out "$tmp/$out.png" "$@" >"$tmp/$out.log" 2>&1 ||
    { cat "$tmp/$out.log"; fail "render $out ($*) failed"; }
}
# Default (auto): a lower-resolution file is refined by the default refiner; the summary says which.
render auto --depth "$tmp/low.png"
grep -qE "depth low, $low refine wmedian \(cpu, [0-9.]+ ms\)" "$tmp/auto.log" ||
  { cat "$tmp/auto.log"; fail "auto did not refine the $low depth with wmedian"; }
render none --depth "$tmp/low.png" --refine none
grep -q "depth low, $low refine none (cpu" "$tmp/none.log" || { cat "$tmp/none.log"; fail "--refine none not in the summary"; }
cmp -s "$tmp/auto.png" "$tmp/none.png" && fail "--refine none and the default refiner gave the same result"
render jbu --depth "$tmp/low.png" --refine jbu
grep -q "refine jbu (cpu" "$tmp/jbu.log" || { cat "$tmp/jbu.log"; fail "--refine jbu not in the summary"; }
cmp -s "$tmp/auto.png" "$tmp/jbu.png" && fail "jbu and wmedian gave the same result"
# A preset's refine choice applies where --refine is not given; --refine beats it.
printf '{"satlab_preset": 1, "refine": "none"}\n' >"$tmp/preset.json"
render preset --depth "$tmp/low.png" --preset "$tmp/preset.json"
cmp -s "$tmp/none.png" "$tmp/preset.png" || { cat "$tmp/preset.log"; fail "the preset's refine none was not applied"; }
render preset_cli --depth "$tmp/low.png" --preset "$tmp/preset.json" --refine wmedian
cmp -s "$tmp/auto.png" "$tmp/preset_cli.png" || fail "--refine did not override the preset"
# A full-size depth file is exact: auto leaves it as it is.
render full --depth "$depth"
grep -q "depth default_depth, refine none" "$tmp/full.log" || { cat "$tmp/full.log"; fail "auto refined a full-size file"; }
render full_none --depth "$depth" --refine none
cmp -s "$tmp/full.png" "$tmp/full_none.png" || fail "auto and none differ on a full-size depth file"

one_line() {  # one_line CODE WHAT ARGS...: exits CODE, one line on stderr naming WHAT, no output file
  local code=$1 what=$2
  shift 2
  rm -f "$tmp/o.png"
  "$bin" "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc -eq "$code" ] || { cat "$tmp/err"; fail "'$*' exited $rc, want $code"; }
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "'$*' printed more than one line"; }
  grep -q -- "$what" "$tmp/err" || { cat "$tmp/err"; fail "'$*': the error does not name $what"; }
  [ ! -e "$tmp/o.png" ] || fail "'$*' wrote an output"
}
valid="none, guided, wmedian, jbu, snap"
one_line 2 "$valid" render --image "$scene" --depth "$tmp/low.png" --refine sharpest --out "$tmp/o.png"
one_line 2 "$valid" depth refine "$tmp/guide.png" --depth "$depth" --refine sharpest --out "$tmp/o.png"
one_line 2 "$valid" depth stereo "$scene" "$scene" --refine sharpest --out "$tmp/o.png"
one_line 2 "$valid" --refine sharpest --frames 1
one_line 2 "--radius" depth refine "$tmp/guide.png" --depth "$depth" --refine jbu --radius 4 --out "$tmp/o.png"
printf '{"satlab_preset": 1, "refine": "sharpest"}\n' >"$tmp/bad.json"
one_line 1 "unknown refiner 'sharpest'" render --image "$scene" --preset "$tmp/bad.json" --out "$tmp/o.png"

# Focus range: at focus 0.5, +-0.5 holds every depth: all sharp, as aperture 0 is.
render sharp --depth "$depth" --aperture 0
render band --depth "$depth" --focus 0.5 --focus-range 0.5
cmp -s "$tmp/sharp.png" "$tmp/band.png" || fail "--focus-range 0.5 at focus 0.5 is not all sharp"
render narrow --depth "$depth" --focus 0.5 --focus-range 0.1
render plain --depth "$depth" --focus 0.5
cmp -s "$tmp/narrow.png" "$tmp/plain.png" && fail "--focus-range 0.1 changed nothing"
cmp -s "$tmp/narrow.png" "$tmp/sharp.png" && fail "--focus-range 0.1 made everything sharp"
one_line 2 "focus-range" render --image "$scene" --focus-range 1.5 --out "$tmp/o.png"
printf '{"satlab_preset": 1, "params": {"focus": 0.5, "focus_range": 0.5}}\n' >"$tmp/band.json"
render band_preset --depth "$depth" --preset "$tmp/band.json"
cmp -s "$tmp/sharp.png" "$tmp/band_preset.png" || fail "the preset's focus_range was not applied"
# On a GPU: the refiner and the focus range run there and give the CPU's bytes (both are bit-exact).
if "$bin" render --image "$scene" --depth "$tmp/low.png" --backend gpu --out "$tmp/gpu.png" >"$tmp/gpu.log" 2>&1; then
  grep -q "refine wmedian (gpu" "$tmp/gpu.log" || { cat "$tmp/gpu.log"; fail "the GPU run did not refine on the GPU"; }
  cmp -s "$tmp/auto.png" "$tmp/gpu.png" || fail "refined and rendered on the GPU, not the CPU's bytes"
  "$bin" render --image "$scene" --depth "$depth" --focus 0.5 --focus-range 0.1 --backend gpu --out "$tmp/gpu_band.png" \
    >/dev/null 2>&1 || fail "--focus-range on the GPU failed"
  cmp -s "$tmp/narrow.png" "$tmp/gpu_band.png" || fail "--focus-range 0.1 on the GPU, not the CPU's bytes"
  echo "GPU: wmedian refine and focus range equal the CPU's"
else
  echo "no GPU ($(tail -1 "$tmp/gpu.log")): the GPU comparison is left out"
fi
echo "ok: refiners (auto on a $low depth file: $(grep -oE 'refine wmedian \([^)]*\)' "$tmp/auto.log")), none differs, presets, one-line usage errors; focus range"
