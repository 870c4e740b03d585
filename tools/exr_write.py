"""Uncompressed OpenEXR files written by hand (no third-party modules), for the test scripts and the fuzz
corpus: one part, float or half channels, scanline (one line a chunk) or tiled (one level), any data window.
  python3 tools/exr_write.py corpus DIR   writes the fuzz seeds (tests/fuzz/corpus/exr)
"""
import struct
import sys


def _attr(name, kind, data):
    return name.encode() + b"\0" + kind.encode() + b"\0" + struct.pack("<i", len(data)) + data


def write(path, w, h, channels, x0=0, y0=0, half=False, tile=None):
    """channels: {name: list of w*h floats, row-major}. tile: (tw, th) for a tiled file, else scanlines."""
    names = sorted(channels)
    ptype, fmt, size = (1, "<e", 2) if half else (2, "<f", 4)
    chlist = b"".join(n.encode() + b"\0" + struct.pack("<iB3xii", ptype, 0, 1, 1) for n in names) + b"\0"
    box = struct.pack("<iiii", x0, y0, x0 + w - 1, y0 + h - 1)
    header = (_attr("channels", "chlist", chlist) + _attr("compression", "compression", b"\0") +
              _attr("dataWindow", "box2i", box) + _attr("displayWindow", "box2i", box) +
              _attr("lineOrder", "lineOrder", b"\0") + _attr("pixelAspectRatio", "float", struct.pack("<f", 1)) +
              _attr("screenWindowCenter", "v2f", struct.pack("<ff", 0, 0)) +
              _attr("screenWindowWidth", "float", struct.pack("<f", 1)))
    if tile:
        header += _attr("tiles", "tiledesc", struct.pack("<IIB", tile[0], tile[1], 0))
    version = struct.pack("<I", 2 | (0x200 if tile else 0))
    blocks = []
    if tile:
        tw, th = tile
        for ty in range((h + th - 1) // th):
            for tx in range((w + tw - 1) // tw):
                xs, ys = range(tx * tw, min(w, tx * tw + tw)), range(ty * th, min(h, ty * th + th))
                data = b"".join(struct.pack(fmt, channels[n][y * w + x]) for y in ys for n in names for x in xs)
                blocks.append(struct.pack("<iiiii", tx, ty, 0, 0, len(data)) + data)
    else:
        for y in range(h):
            data = b"".join(struct.pack(fmt, channels[n][y * w + x]) for n in names for x in range(w))
            blocks.append(struct.pack("<ii", y0 + y, len(data)) + data)
    head = b"\x76\x2f\x31\x01" + version + header + b"\0"
    offset, table = len(head) + 8 * len(blocks), b""
    for b in blocks:
        table += struct.pack("<Q", offset)
        offset += len(b)
    open(path, "wb").write(head + table + b"".join(blocks))


def _ramp(w, h, f):
    return [f(x, y) for y in range(h) for x in range(w)]


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "corpus":
    d = sys.argv[2]
    w, h = 7, 5
    rgbz = {"R": _ramp(w, h, lambda x, y: x / 6), "G": _ramp(w, h, lambda x, y: y / 4), "B": _ramp(w, h, lambda x, y: 2.0),
            "Z": _ramp(w, h, lambda x, y: 1 + x + 10 * y)}
    write(f"{d}/rgbz.exr", w, h, rgbz)
    write(f"{d}/rgbz_half_window.exr", w, h, rgbz, x0=-3, y0=11, half=True)
    write(f"{d}/rgba_tiled.exr", w, h, {"R": rgbz["R"], "G": rgbz["G"], "B": rgbz["B"], "A": _ramp(w, h, lambda x, y: 0.5)},
          tile=(4, 2))
    write(f"{d}/z_only.exr", 3, 2, {"Z": [1, 2, float("inf"), 4, float("nan"), 6]})
    write(f"{d}/y_grey.exr", 4, 4, {"Y": _ramp(4, 4, lambda x, y: (x + y) / 6)})
    data = open(f"{d}/rgbz.exr", "rb").read()
    open(f"{d}/cut.exr", "wb").write(data[: len(data) // 2])
