#!/usr/bin/env python3
"""Draws satlab's icon: packaging/satlab.svg (vector) and packaging/satlab.png (256 px, for launchers
that take no SVG). A summed-area table whose cells brighten as the sums grow towards the bottom right,
one box (orange) and the four corners a box sum reads. Standard library only.
Usage: tools/make_icon.py [OUT_DIR]   (default: packaging/)"""
import os
import struct
import sys
import zlib

BG = (0x1b, 0x22, 0x30)
BOX = (0xff, 0x9d, 0x2e)
CORNER = (0xff, 0xd2, 0x7a)


def cell_colour(r, c):
    v = (r + 1) * (c + 1) / 16.0
    g = int(40 + 180 * v)
    return (int(g * 0.55), g, int(70 + 170 * v))


# The picture on a 64-unit canvas: (kind, geometry, colour), painted in order.
def shapes():
    s = [("rrect", (2, 2, 60, 60, 10), BG)]
    for r in range(4):
        for c in range(4):
            s.append(("rrect", (8 + 12 * c, 8 + 12 * r, 11, 11, 1.5), cell_colour(r, c)))
    s.append(("frame", (19.5, 19.5, 24, 24, 2.5), BOX))
    for x in (19.5, 43.5):
        for y in (19.5, 43.5):
            s.append(("circle", (x, y, 3), CORNER))
    return s


def svg():
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           "<!-- satlab's icon (tools/make_icon.py): a summed-area table whose cells brighten as the sums grow,",
           "     one box (orange) and the four corners its sum reads. -->",
           '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">']
    hexc = lambda c: "#%02x%02x%02x" % c
    for kind, g, col in shapes():
        if kind == "rrect":
            x, y, w, h, r = g
            out.append(f'  <rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{r}" fill="{hexc(col)}"/>')
        elif kind == "frame":
            x, y, w, h, sw = g
            out.append(f'  <rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="{hexc(col)}" '
                       f'stroke-width="{sw}"/>')
        else:
            x, y, r = g
            out.append(f'  <circle cx="{x}" cy="{y}" r="{r}" fill="{hexc(col)}"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def inside(kind, g, x, y):
    if kind == "rrect":
        x0, y0, w, h, r = g
        if not (x0 <= x <= x0 + w and y0 <= y <= y0 + h):
            return False
        cx = min(max(x, x0 + r), x0 + w - r)
        cy = min(max(y, y0 + r), y0 + h - r)
        return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
    if kind == "frame":  # a stroke of width sw centred on the rectangle's outline
        x0, y0, w, h, sw = g
        outer = x0 - sw / 2 <= x <= x0 + w + sw / 2 and y0 - sw / 2 <= y <= y0 + h + sw / 2
        inner = x0 + sw / 2 < x < x0 + w - sw / 2 and y0 + sw / 2 < y < y0 + h - sw / 2
        return outer and not inner
    cx, cy, r = g
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def png(size, ss=4):
    shp = shapes()
    rows = []
    for py in range(size):
        row = bytearray([0])  # filter type none
        for px in range(size):
            acc = [0.0, 0.0, 0.0, 0.0]  # premultiplied RGB, alpha
            for sy in range(ss):
                for sx in range(ss):
                    x = (px + (sx + 0.5) / ss) * 64.0 / size
                    y = (py + (sy + 0.5) / ss) * 64.0 / size
                    col = None
                    for kind, g, c in shp:
                        if inside(kind, g, x, y):
                            col = c
                    if col:
                        acc[0] += col[0]
                        acc[1] += col[1]
                        acc[2] += col[2]
                        acc[3] += 1
            n = ss * ss
            a = acc[3] / n
            rgb = [int(round(acc[i] / acc[3])) if acc[3] else 0 for i in range(3)]
            row += bytes(rgb + [int(round(255 * a))])
        rows.append(bytes(row))

    def chunk(tag, data):
        c = tag + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) +
            chunk(b"IEND", b""))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "packaging")
    with open(os.path.join(out, "satlab.svg"), "w") as f:
        f.write(svg())
    with open(os.path.join(out, "satlab.png"), "wb") as f:
        f.write(png(256))


if __name__ == "__main__":
    main()
