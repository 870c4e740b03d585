#!/usr/bin/env python3
"""Checks two app screenshots (result view, input view): right size, not blank, and the image area
differs between them (the blur did something) while being similar overall (same scene).
Uses only the standard library (zlib PNG decoding) so it runs on any CI machine."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"{path}: unexpected PNG format"
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def pixel(shot, x, y):
    """RGB of pixel (x, y) of a read_png() result."""
    _, _, bpp, rows = shot
    return tuple(rows[y][x * bpp:x * bpp + 3])


def mean_abs_diff(a, b, xs, ys, shift=0):
    """Mean absolute RGB difference between shot a at (x, y) and shot b at (x + shift, y) over xs x ys."""
    d = [abs(p - q) for y in ys for x in xs for p, q in zip(pixel(a, x, y), pixel(b, x + shift, y))]
    return sum(d) / len(d)


def main():
    result, inp, W, H = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    w, h, bpp, r = read_png(result)
    _, _, _, i = read_png(inp)
    assert (w, h) == (W, H), f"screenshot is {w}x{h}, expected {W}x{H}"
    colours = {bytes(r[y][x * bpp:x * bpp + 3]) for y in range(0, h, 7) for x in range(0, w, 7)}
    assert len(colours) > 500, f"screenshot looks blank ({len(colours)} distinct colours)"
    # The image occupies the left ~70% of the window; compare its central band.
    diff, n = 0, 0
    for y in range(h // 4, 3 * h // 4, 3):
        for x in range(w // 10, int(w * 0.6), 3):
            diff += sum(abs(r[y][x * bpp + c] - i[y][x * bpp + c]) for c in range(3))
            n += 3
    mean = diff / n
    assert mean > 1.0, f"blurred result hardly differs from the input (mean abs diff {mean:.2f})"
    assert mean < 60.0, f"result and input look like different scenes (mean abs diff {mean:.2f})"
    print(f"{result}: {w}x{h}, {len(colours)} colours, image-area difference {mean:.2f}")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
