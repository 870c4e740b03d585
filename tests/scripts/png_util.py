"""Minimal PNG reading and writing for the test scripts (no third-party modules): 8-bit RGB/RGBA and
16-bit greyscale, every filter type."""
import struct
import zlib


def write_rgb(path, w, h, px):
    """px(x, y) -> (r, g, b): an 8-bit RGB PNG."""
    rows = [bytes(v for x in range(w) for v in px(x, y)) for y in range(h)]

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)

    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows)))
                           + chunk(b"IEND", b""))


def write_disc_photo(path, w, h, cx, cy, r):
    """A flat orange disc of radius r at (cx, cy) over a fine blue checker: a subject of known geometry."""
    def px(x, y):
        if (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r:
            return (230, 140, 40)
        return (30, 60, 140) if (x // 2 + y // 2) % 2 else (90, 150, 220)
    write_rgb(path, w, h, px)


def read(path):
    """-> (w, h, get) with get(x, y) an RGB tuple (8-bit colour) or a float in [0,1] (16-bit grey)."""
    data, pos, idat = open(path, "rb").read(), 8, b""
    while pos < len(data):
        n, t = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if t == b"IHDR":
            w, h, bd, ct = struct.unpack(">IIBB", body[:10])
        if t == b"IDAT":
            idat += body
        pos += 12 + n
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[ct]
    bpp = channels * bd // 8
    stride = w * bpp
    raw, prev, rows = zlib.decompress(idat), bytearray(stride), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    if bd == 16 and channels == 1:
        return w, h, lambda x, y: struct.unpack(">H", rows[y][2 * x:2 * x + 2])[0] / 65535
    assert bd == 8 and channels >= 3, (path, bd, ct)
    return w, h, lambda x, y: tuple(rows[y][x * channels:x * channels + 3])
