#!/usr/bin/env python3
"""The streaming tests' image writer, standard library only. Pixels: a ramp, a checker and noise from a
seeded generator, so that every tile differs from its neighbours.
  png PATH W H [rgba]          8-bit RGB (or RGBA, alpha varying) PNG
  turned PATH W H ORIENTATION [after]  8-bit RGB PNG with an eXIf orientation (after: the chunk after the
                               image data, where the PNG row reader does not see it)
  depth16 PATH W H             16-bit grey PNG: a radial depth with noise
  strips PATH W H ROWS         8-bit RGB TIFF, uncompressed, ROWS rows a strip, its directory first (a cut
                               file still has one)
  tiles PATH W H TW TH         8-bit RGB TIFF, uncompressed tiles of TW x TH (multiples of 16)"""
import random, struct, sys, zlib


def pixels(w, h, channels, seed=7):
    rnd = random.Random(seed)
    out = bytearray(w * h * channels)
    for y in range(h):
        for x in range(w):
            i = (y * w + x) * channels
            check = 40 if ((x // 13) ^ (y // 11)) & 1 else -40
            base = (x * 200 // max(w, 1) + 30, y * 200 // max(h, 1) + 30, 128)
            for c in range(3):
                out[i + c] = max(0, min(255, base[c] + check + rnd.randrange(-30, 31)))
            if channels == 4:
                out[i + 3] = 255 - (x * 3 + y) % 97
    return out


def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


def png(path, w, h, rgba, orientation=1, exif_after=False):
    ch = 4 if rgba else 3
    px = pixels(w, h, ch)
    raw = b"".join(b"\0" + bytes(px[y * w * ch:(y + 1) * w * ch]) for y in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 6 if rgba else 2, 0, 0, 0)
    exif = b""
    if orientation != 1:  # an eXIf chunk: a big-endian TIFF header and one IFD entry, Orientation (0x112)
        exif = chunk(b"eXIf", b"MM\0*\0\0\0\x08" + struct.pack(">HHHIHH", 1, 0x112, 3, 1, orientation, 0) + b"\0" * 4)
    idat = chunk(b"IDAT", zlib.compress(raw))
    body = idat + exif if exif_after else exif + idat
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + body + chunk(b"IEND", b""))


def depth16(path, w, h):
    rnd = random.Random(3)
    rows = []
    for y in range(h):
        row = bytearray(b"\0")
        for x in range(w):
            d = ((x - w / 3) ** 2 + (y - h / 2) ** 2) ** 0.5 / max(w, h)
            row += struct.pack(">H", max(0, min(65535, int(d * 90000) + rnd.randrange(-500, 501))))
        rows.append(bytes(row))
    ihdr = struct.pack(">IIBBBBB", w, h, 16, 0, 0, 0, 0)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"".join(rows))) +
                           chunk(b"IEND", b""))


def tiff(path, w, h, blocks, extra):
    """blocks: the byte strings of the strips or tiles in order; extra: their layout's tags."""
    n = len(blocks)
    entries = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 3, None), (259, 3, 1, 1), (262, 3, 1, 2), (277, 3, 1, 3),
               (284, 3, 1, 1)] + extra
    # The directory, then the arrays it points to, then the pixel blocks.
    ifd_size = 2 + 12 * (len(entries) + 2) + 4
    arrays = 8 + ifd_size
    bps_at = arrays
    offsets_at = bps_at + 6
    counts_at = offsets_at + 4 * n
    data_at = counts_at + 4 * n
    offsets, at = [], data_at
    for b in blocks:
        offsets.append(at)
        at += len(b)
    tag_offsets, tag_counts = (324, 325) if any(t == 322 for t, *_ in extra) else (273, 279)
    entries += [(tag_offsets, 4, n, offsets[0] if n == 1 else offsets_at),
                (tag_counts, 4, n, len(blocks[0]) if n == 1 else counts_at)]
    entries.sort()
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        if tag == 258:
            value = bps_at
        ifd += struct.pack("<HHII", tag, kind, count, value) if kind == 4 or count > 1 or tag == 258 else \
            struct.pack("<HHIHH", tag, kind, count, value, 0)
    ifd += b"\0\0\0\0"
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<HHH", 8, 8, 8) +
                struct.pack("<%dI" % n, *offsets) + struct.pack("<%dI" % n, *[len(b) for b in blocks]))
        for b in blocks:
            f.write(b)


def strips(path, w, h, rows):
    px = pixels(w, h, 3)
    blocks = [bytes(px[y * w * 3:min(h, y + rows) * w * 3]) for y in range(0, h, rows)]
    tiff(path, w, h, blocks, [(278, 4, 1, rows)])


def tiles(path, w, h, tw, th):
    px = pixels(w, h, 3)
    blocks = []
    for ty in range(0, h, th):
        for tx in range(0, w, tw):
            b = bytearray(tw * th * 3)
            for r in range(min(th, h - ty)):
                cols = min(tw, w - tx)
                src = ((ty + r) * w + tx) * 3
                b[r * tw * 3:r * tw * 3 + cols * 3] = px[src:src + cols * 3]
            blocks.append(bytes(b))
    tiff(path, w, h, blocks, [(322, 4, 1, tw), (323, 4, 1, th)])


cmd, path, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if cmd == "png":
    png(path, w, h, len(sys.argv) > 5 and sys.argv[5] == "rgba")
elif cmd == "turned":
    png(path, w, h, False, int(sys.argv[5]), len(sys.argv) > 6 and sys.argv[6] == "after")
elif cmd == "depth16":
    depth16(path, w, h)
elif cmd == "strips":
    strips(path, w, h, int(sys.argv[5]))
elif cmd == "tiles":
    tiles(path, w, h, int(sys.argv[5]), int(sys.argv[6]))
else:
    sys.exit("unknown command " + cmd)
