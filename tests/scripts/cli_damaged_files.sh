#!/usr/bin/env bash
# Damaged files that decoders let through: a JPEG whose header declares more rows than its data holds (SOF
# height doubled) is refused in one line, whole and streamed, as a truncated one is (libjpeg alone fills
# the missing rows with grey); a PNG whose IDAT chunk has a bad CRC is refused (stb checks no CRC), one whose
# ancillary tEXt chunk has one renders with a note; a PNG whose header declares far more rows than its
# image data inflates to is refused from a count of that data, whole, streamed and as a depth map, before
# anything of the image's size is allocated.
# Usage: cli_damaged_files.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to edit the JPEG header"
cd "$tmp" || exit 1
"$bin" render "$src/assets/coffee.png" --backend cpu --filter box --radius 0 --out ok.jpg >/dev/null 2>&1 ||
  fail "cannot write the test JPEG"
python3 - ok.jpg tall.jpg <<'PY' || fail "cannot edit the JPEG"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
i = 2
while i < len(d):
    assert d[i] == 0xFF, "not a marker"
    m, n = d[i + 1], struct.unpack(">H", d[i + 2:i + 4])[0]
    if m in (0xC0, 0xC1, 0xC2):
        h = struct.unpack(">H", d[i + 5:i + 7])[0]
        d[i + 5:i + 7] = struct.pack(">H", 2 * h)
        break
    i += 2 + n
open(sys.argv[2], "wb").write(d)
PY
for mode in --whole "--tile 128"; do
  # shellcheck disable=SC2086
  "$bin" render tall.jpg --backend cpu --filter box --radius 1 $mode --out out.tif >log 2>&1
  rc=$?
  [ $rc = 1 ] || { cat log; fail "$mode: exit $rc, not 1"; }
  [ "$(grep -vc '^satlab: note:' log)" = 1 ] && grep -q "data ends before row" log || { cat log; fail "$mode: the refusal"; }
  [ ! -e out.tif ] || fail "$mode: a result was written"
done
"$bin" render ok.jpg --backend cpu --filter box --radius 1 --out good.tif >/dev/null 2>&1 || fail "the unedited JPEG was refused"
python3 - <<'PY' || fail "cannot write the PNGs"
import struct, zlib
def chunk(t, d, bad=False):
    crc = zlib.crc32(t + d) & 0xffffffff
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", crc ^ (1 if bad else 0))
raw = b"".join(b"\0" + bytes((x * 3) % 256 for x in range(3 * 40)) for _ in range(30))
head = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 40, 30, 8, 2, 0, 0, 0))
open("bad_idat.png", "wb").write(head + chunk(b"IDAT", zlib.compress(raw), True) + chunk(b"IEND", b""))
open("bad_text.png", "wb").write(head + chunk(b"tEXt", b"Comment\0hello", True) + chunk(b"IDAT", zlib.compress(raw))
                                 + chunk(b"IEND", b""))
PY
"$bin" render bad_idat.png --backend cpu --filter box --radius 1 --out out.png >log 2>&1
rc=$?
[ $rc = 1 ] && [ "$(wc -l <log)" = 1 ] && grep -q "damaged PNG: the IDAT chunk at byte 33 fails its CRC check" log ||
  { cat log; fail "a bad IDAT CRC: exit $rc"; }
[ ! -e out.png ] || fail "a result of the damaged PNG was written"
"$bin" render bad_text.png --backend cpu --filter box --radius 1 --out text.png >log 2>&1 || { cat log; fail "a bad tEXt CRC was refused"; }
grep -q "note: .*tEXt chunk at byte 33 fails its CRC check (an ancillary chunk: ignored)" log ||
  { cat log; fail "no note of the bad tEXt CRC"; }
python3 - <<'PY' || fail "cannot write the short PNG"
import struct, zlib
w, h = 200000, 100  # 60 MB of rows declared; 30 MB of zeros given (30 KB on disk: the size check passes)
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
data = zlib.compress(b"\0" * (30 << 20), 9)
open("short.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                             + chunk(b"IDAT", data) + chunk(b"IEND", b""))
PY
for args in "short.png --whole --out s.png" "short.png --tile 256 --out s.tif" "$src/assets/coffee.png --depth short.png --out s.png"; do
  # shellcheck disable=SC2086
  "$bin" render $args --backend cpu --memory-budget 8G >log 2>&1
  rc=$?
  [ $rc = 1 ] && grep -q "its image data inflates to 31457280 bytes, short of the 60000000" log ||
    { cat log; fail "$args: exit $rc, not the short-data refusal"; }
done
echo "cli_damaged_files: all checks passed"
