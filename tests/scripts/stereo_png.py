#!/usr/bin/env python3
"""The script tests' PNG helper, standard library only (8-bit RGB out, 16-bit grey in, all five PNG
filters). pair L R: a 96x64 pair, random texture, background at disparity 4, a rectangle [32,72) x [16,48)
in front at 12. check D.png [nofill]: KITTI values / 256 against that truth. size D.png: decodes.
grey16 D.png X Y: prints the 16-bit value at (X, Y)."""
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
if sys.argv[1] == "grey16":
    w, h, v = read_grey16(sys.argv[2])
    print(v[int(sys.argv[4]) * w + int(sys.argv[3])])
elif sys.argv[1] == "pair":
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
