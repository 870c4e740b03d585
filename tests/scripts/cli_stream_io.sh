#!/usr/bin/env bash
# Headers before pixels, and nothing left behind (docs/reliability.md): images whose headers declare more
# than --max-megapixels are refused in one line before their pixel data is read, so the refusal costs
# little memory whatever the file's size (peak RSS from /usr/bin/time, a memory check, not a timing one);
# a truncated TIFF, PNG and JPEG each give one line, exit 1 and no output, temporary or final.
# Usage: cli_stream_io.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_scene
need_python3 "to write the test files"
[ -x /usr/bin/time ] || skip "/usr/bin/time is needed to measure peak RSS (Debian package time)"
render() { "$bin" render --backend cpu --filter box --radius 2 "$@"; }
one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "$1: expected one error line"; }; }
nothing_written() {  # no output and no temporary file beside it
  [ -z "$(ls -A "$tmp/out")" ] || { ls -A "$tmp/out"; fail "$1: something was written"; }
}
mkdir "$tmp/out"

# Large headers, cheap files: an uncompressed single-strip TIFF whose strip is a hole in a sparse file, a
# PNG of deflated zeros, and a JPEG whose frame header is patched to 8192x8192 (padded past the size
# check's bound).
render --image "$src/assets/default.png" --out "$tmp/small.jpg" >/dev/null 2>&1 || fail "cannot write a JPEG"
python3 - "$tmp" <<'PY' || fail "cannot write the large-header files"
import struct, sys, zlib
tmp = sys.argv[1]
def tiff(path, w, h):  # 8-bit grey, one uncompressed strip at offset 4096
    e = [(256, 4, w), (257, 4, h), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 4096), (277, 3, 1),
         (278, 4, h), (279, 4, w * h)]
    ifd = struct.pack("<H", len(e)) + b"".join(struct.pack("<HHII", t, k, 1, v) for t, k, v in e) + b"\0" * 4
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", 8) + ifd)
        f.truncate(4096 + w * h)
def png(path, w, h):
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    z, row, data = zlib.compressobj(9), b"\0" * (w + 1), b""
    for _ in range(h): data += z.compress(row)
    data += z.flush()
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
                chunk(b"IDAT", data) + chunk(b"IEND", b""))
def jpeg(src, path, w, h):
    b = bytearray(open(src, "rb").read())
    i = 2
    while b[i + 1] not in (0xC0, 0xC1, 0xC2): i += 2 + (b[i + 2] << 8 | b[i + 3])
    b[i + 5:i + 9] = struct.pack(">HH", h, w)
    open(path, "wb").write(bytes(b) + b"\0" * (w * h // 2048))
tiff(tmp + "/strip_20000x14000.tif", 20000, 14000)
tiff(tmp + "/strip_8192.tif", 8192, 8192)
png(tmp + "/zeros_8192.png", 8192, 8192)
jpeg(tmp + "/small.jpg", tmp + "/frame_8192.jpg", 8192, 8192)
PY
for big in strip_20000x14000.tif strip_8192.tif zeros_8192.png frame_8192.jpg; do
  /usr/bin/time -v -o "$tmp/time" "$bin" render --backend cpu --filter box --radius 2 --image "$tmp/$big" \
    --max-megapixels 1 --out "$tmp/out/big.png" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || { cat "$tmp/err"; fail "$big over --max-megapixels 1: exit $rc, not 1"; }
  one_line "$big"
  grep -q "$big: image is .*more than the limit of 1.0 Mpx" "$tmp/err" || { cat "$tmp/err"; fail "$big: unclear message"; }
  rss=$(awk -F: '/Maximum resident set size/ {print $2 + 0}' "$tmp/time")
  echo "$big refused by --max-megapixels 1: peak RSS $((rss / 1024)) MiB"
  # 100 MiB; 200 under the sanitizers, whose shadow memory alone put the refusal at 98-100 MiB there. The
  # largest file's pixels are 840 MB: reading them would show either way.
  limit=100
  sanitized && limit=200
  [ "$rss" -lt $((limit * 1024)) ] || fail "$big: refusing it took $((rss / 1024)) MiB (pixel data read before the header was checked?)"
  nothing_written "$big"
done

# Truncated files: one line, exit 1, no output.
render --image "$src/assets/default.png" --out "$tmp/full.tif" >/dev/null 2>&1 || fail "cannot write a TIFF"
# A TIFF whose directory comes first, its one strip cut short by 3000 bytes (libtiff writes its directory
# last, so a cut file of its own has none).
python3 - "$tmp" <<'PY' || fail "cannot write the truncated files"
import struct, sys
tmp = sys.argv[1]
w, h = 300, 200
e = [(256, 4, w), (257, 4, h), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 4096), (277, 3, 1), (278, 4, h),
     (279, 4, w * h)]
ifd = struct.pack("<H", len(e)) + b"".join(struct.pack("<HHII", t, k, 1, v) for t, k, v in e) + b"\0" * 4
open(tmp + "/cut_strip.tif", "wb").write((b"II*\0" + struct.pack("<I", 8) + ifd).ljust(4096, b"\0") +
                                         bytes(i % 251 for i in range(w * h - 3000)))
PY
cp "$src/assets/default.png" "$tmp/full.png"
cp "$tmp/small.jpg" "$tmp/full.jpg"
for f in full.tif full.png full.jpg; do
  size=$(stat -c %s "$tmp/$f")
  head -c $((size * 2 / 3)) "$tmp/$f" >"$tmp/cut_${f#full.}.${f#full.}"
done
for cut in cut_tif.tif cut_strip.tif cut_png.png cut_jpg.jpg; do
  for out in o.png o.tif o.jpg; do
    render --image "$tmp/$cut" --out "$tmp/out/$out" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || { cat "$tmp/err"; fail "truncated $cut: exit $rc, not 1"; }
    one_line "truncated $cut"
    grep -q "$cut" "$tmp/err" || { cat "$tmp/err"; fail "truncated $cut: the message does not name the file"; }
    nothing_written "truncated $cut"
  done
  echo "truncated $cut: $(cat "$tmp/err")"
done
echo "cli_stream_io: all checks passed"
