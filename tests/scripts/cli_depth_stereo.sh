#!/usr/bin/env bash
# `satlab depth stereo` end to end on a tiny generated pair (random texture: background at disparity 4, a
# rectangle in front at 12): the output is a 16-bit PNG whose values / 256 are the disparities; bad
# arguments exit 2 with one line, bad files exit 1 with one line, nothing written.
set -u
bin=${1:-} src=${2:-}
[ -x "$bin" ] || { echo "SKIP: no satlab binary at '$bin'"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3 to make the pair"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# PNG writer/reader in the standard library only (8-bit RGB out, 16-bit grey in, all five filters).
cat >"$tmp/png.py" <<'PY'
import random, struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
def write_rgb(path, w, h, px):
    raw = b"".join(b"\0" + bytes(v for p in px[y*w:(y+1)*w] for v in p) for y in range(h))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
def read_grey16(path):
    b = open(path, "rb").read(); assert b[:8] == b"\x89PNG\r\n\x1a\n"; i = 8; idat = b""
    while i < len(b):
        n, t = struct.unpack(">I4s", b[i:i+8]); d = b[i+8:i+8+n]; i += 12 + n
        if t == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", d[:10])
        if t == b"IDAT": idat += d
    assert depth == 16 and ctype == 0, (depth, ctype)
    raw = zlib.decompress(idat); stride = 2 * w; prev = bytearray(stride); out = []
    for y in range(h):
        f = raw[y*(stride+1)]; line = bytearray(raw[y*(stride+1)+1:(y+1)*(stride+1)])
        for x in range(stride):
            a = line[x-2] if x >= 2 else 0; c = prev[x-2] if x >= 2 else 0; up = prev[x]
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + up) & 255
            elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        out += [line[2*x] << 8 | line[2*x+1] for x in range(w)]; prev = line
    return w, h, out
if sys.argv[1] == "pair":
    w, h, bg, fg = 96, 64, 4, 12; rnd = random.Random(5)
    tb = {(u, y): rnd.randrange(256) for u in range(-2, w + 20) for y in range(h)}
    tf = {(u, y): rnd.randrange(256) for u in range(-2, w + 20) for y in range(h)}
    inside = lambda u, y: 32 <= u < 72 and 16 <= y < 48
    col = lambda v: (v, 255 - v, v // 2 + 64)
    left = [col(tf[x, y] if inside(x, y) else tb[x, y]) for y in range(h) for x in range(w)]
    right = [col(tf[x + fg, y] if inside(x + fg, y) else tb[x + bg, y]) for y in range(h) for x in range(w)]
    write_rgb(sys.argv[2], w, h, left); write_rgb(sys.argv[3], w, h, right)
else:  # check D.png: disparity = value / 256 against the truth well inside each surface
    w, h, v = read_grey16(sys.argv[2])
    assert (w, h) == (96, 64), (w, h)
    if sys.argv[1] == "size": sys.exit(0)
    at = lambda x, y: v[y * w + x] / 256.0
    assert abs(at(50, 32) - 12) <= 0.5, at(50, 32)   # inside the rectangle
    assert abs(at(85, 8) - 4) <= 0.5, at(85, 8)      # background
    bad = sum(1 for y in range(h) for x in range(16, w) if x not in range(20, 76)
              and abs(v[y * w + x] / 256.0 - 4) > 1 and not (16 <= y < 48))
    assert bad == 0, bad                             # rows above and below the rectangle: background
    if len(sys.argv) > 3: assert 0 in v, "--no-fill left no zero"
    else: assert all(x > 0 for x in v), "a pixel without disparity after filling"
PY
python3 "$tmp/png.py" pair "$tmp/l.png" "$tmp/r.png" || fail "could not write the pair"
"$bin" depth stereo "$tmp/l.png" "$tmp/r.png" --out "$tmp/d.png" --max-disparity 16 --backend cpu >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "depth stereo failed"; }
python3 "$tmp/png.py" check "$tmp/d.png" || fail "wrong disparities in d.png"
"$bin" depth stereo "$tmp/l.png" "$tmp/r.png" --out "$tmp/raw.png" --max-disparity 16 --no-fill --backend cpu \
  >/dev/null 2>&1 || fail "depth stereo --no-fill failed"
python3 "$tmp/png.py" check "$tmp/raw.png" nofill || fail "wrong --no-fill output"
"$bin" depth stereo "$tmp/l.png" "$tmp/r.png" --out "$tmp/refined.png" --max-disparity 16 --refine --backend cpu \
  >/dev/null 2>&1 || fail "depth stereo --refine failed"
python3 "$tmp/png.py" size "$tmp/refined.png" || fail "--refine output does not decode"

# Usage errors: exit 2, one line, nothing written.
for args in "--max-disparity 1024" "--max-disparity -1" "--window 16" "--backend tpu" "" "--out"; do
  # shellcheck disable=SC2086
  "$bin" depth stereo "$tmp/l.png" "$tmp/r.png" $args ${args:+--out "$tmp/bad.png"} >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || { cat "$tmp/err"; fail "exit $rc for '$args', expected 2"; }
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "expected one error line for '$args'"; }
  [ ! -e "$tmp/bad.png" ] || fail "output written for '$args'"
done
"$bin" depth >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "bare 'depth' not a one-line usage error"; }

# Bad files and a size mismatch: exit 1, one line naming the problem, nothing written.
printf 'not an image' >"$tmp/text.png"
"$bin" depth stereo "$tmp/text.png" "$tmp/r.png" --out "$tmp/bad.png" --backend cpu >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q text.png "$tmp/err" ||
  { cat "$tmp/err"; fail "bad left image not reported in one line"; }
"$bin" depth stereo "$tmp/l.png" "$src/assets/default.png" --out "$tmp/bad.png" --backend cpu >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "differ in size" "$tmp/err" ||
  { cat "$tmp/err"; fail "size mismatch not reported in one line"; }
[ ! -e "$tmp/bad.png" ] || fail "output written for bad files"
echo "ok"
