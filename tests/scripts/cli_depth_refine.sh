#!/usr/bin/env bash
# `satlab depth refine` end to end on tiny files: a rough depth step refined along the image's edge (16-bit
# PNG out, depth in [0,1]); colour and gray; bad arguments exit 2 with one line; a missing file exits 1
# with one line naming it, nothing written.
# Usage: cli_depth_refine.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write and read the tiny PNGs"

# A 37x11 image, dark left of x = 18 and bright from there on; a rough depth whose step is at x = 20.
python3 - "$tmp" <<'PY'
import struct, sys, zlib
def png(path, w, h, rows, bitdepth, colour):
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    raw = b"".join(b"\0" + r for r in rows)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bitdepth, colour, 0, 0, 0))
                            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
w, h = 37, 11
png(sys.argv[1] + "/image.png", w, h, [bytes(v for x in range(w) for v in ((30, 40, 50) if x < 18 else (220, 200, 180))) for y in range(h)], 8, 2)
png(sys.argv[1] + "/rough.png", w, h, [b"".join(struct.pack(">H", 0 if x < 20 else 65535) for x in range(w)) for y in range(h)], 16, 0)
PY

read16() { python3 "$src/tests/scripts/stereo_png.py" grey16 "$@"; }  # read16 FILE X Y: the 16-bit grey value

for mode in colour gray; do
  flag=""; [ $mode = gray ] && flag=--gray
  "$bin" depth refine "$tmp/image.png" --depth "$tmp/rough.png" --radius 8 --eps 1e-4 $flag --backend cpu \
    --out "$tmp/$mode.png" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$mode refine failed"; }
  grep -q "wrote" "$tmp/log" || fail "$mode: no 'wrote' line"
  # Between the image's edge (18) and the rough step (20) the refined depth moves towards the image: far;
  # just left of the image's edge it stays near (a box blur of radius 8 would give 6/17 = 0.35 there).
  v17=$(read16 "$tmp/$mode.png" 17 5) v19=$(read16 "$tmp/$mode.png" 19 5) v30=$(read16 "$tmp/$mode.png" 30 5)
  echo "$mode: refined depth at x = 17, 19, 30: $v17 $v19 $v30 (of 65535)"
  [ "$v19" -gt 32768 ] || fail "$mode: refined depth at x=19 is $v19 (the rough map says near, the image far)"
  [ "$v17" -lt 6554 ] || fail "$mode: near side at x=17 is $v17"
  [ "$v30" -gt 58982 ] || fail "$mode: far side at x=30 is $v30"
done
# Radius past the image: still a valid map.
"$bin" depth refine "$tmp/image.png" --depth "$tmp/rough.png" --radius 500 --eps 1e-2 --backend cpu \
  --out "$tmp/big.png" >/dev/null 2>&1 || fail "radius 500 on 37x11 failed"

one_line() {  # one_line CODE ARGS...: exits CODE, one line on stderr, no output file
  local code=$1
  shift
  rm -f "$tmp/o.png"
  "$bin" depth refine "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc -eq "$code" ] || { cat "$tmp/err"; fail "'$*' exited $rc, want $code"; }
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "'$*' printed more than one line"; }
  [ ! -e "$tmp/o.png" ] || fail "'$*' wrote an output"
}
one_line 2 "$tmp/image.png" --depth "$tmp/rough.png" --radius 4 --eps 0 --out "$tmp/o.png"
one_line 2 "$tmp/image.png" --depth "$tmp/rough.png" --radius -1 --eps 1e-3 --out "$tmp/o.png"
one_line 2 "$tmp/image.png" --depth "$tmp/rough.png" --radius 4 --eps abc --out "$tmp/o.png"
one_line 2 "$tmp/image.png" --radius 4 --out "$tmp/o.png"
one_line 2 "$tmp/image.png" --depth "$tmp/rough.png"
one_line 2 "$tmp/image.png" --depth "$tmp/rough.png" --out "$tmp/o.png" --backend tpu
one_line 1 "$tmp/missing.png" --depth "$tmp/rough.png" --out "$tmp/o.png"
grep -q "missing.png" "$tmp/err" || fail "the missing image is not named"
one_line 1 "$tmp/image.png" --depth "$tmp/nodepth.png" --out "$tmp/o.png"
grep -q "nodepth.png" "$tmp/err" || fail "the missing depth map is not named"
# The output may not overwrite an input.
"$bin" depth refine "$tmp/image.png" --depth "$tmp/rough.png" --backend cpu --out "$tmp/rough.png" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "overwriting the input not refused in one line"; }
echo "depth refine: edges followed (colour and gray), bad arguments and missing files refused in one line"
