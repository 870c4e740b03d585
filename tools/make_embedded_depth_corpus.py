#!/usr/bin/python3
"""Writes the seed corpus of tests/fuzz/fuzz_embedded_depth.cpp (tests/fuzz/corpus/embedded_depth) from the
embedded-depth samples (tests/data/embedded_depth, written by tools/depth_samples): each whole file (first
byte 0) and each file's standard XMP packet with what follows the primary image (first byte 1, the
packet's length in two bytes), plus broken variants. Standard library only. Run from the repo root."""
import os
import struct

src = "tests/data/embedded_depth"
out = "tests/fuzz/corpus/embedded_depth"
os.makedirs(out, exist_ok=True)
SIG = b"http://ns.adobe.com/xap/1.0/\0"


def xmp_and_tail(jpg):
    at = jpg.index(SIG)
    length = struct.unpack(">H", jpg[at - 2:at])[0]
    xmp = jpg[at + len(SIG):at - 2 + length]
    eoi = jpg.index(b"\xff\xd9", jpg.index(b"\xff\xda")) + 2
    return xmp, jpg[eoi:]


seeds = {}
for name in sorted(os.listdir(src)):
    if not name.endswith(".jpg"):
        continue
    jpg = open(f"{src}/{name}", "rb").read()
    stem = name[:-4]
    seeds[f"{stem}.file"] = b"\0" + jpg
    seeds[f"{stem}_truncated.file"] = b"\0" + jpg[: len(jpg) * 3 // 4]
    xmp, tail = xmp_and_tail(jpg)
    seeds[f"{stem}.xmp"] = b"\1" + struct.pack(">H", len(xmp)) + xmp + tail
    seeds[f"{stem}_cut.xmp"] = b"\1" + struct.pack(">H", len(xmp) // 2) + xmp[: len(xmp) // 2]
seeds["entities.xmp"] = b"\1\0\x40" + b'<a xmlns:g="http://ns.google.com/photos/1.0/depthmap/" g:Data="&#x41;&amp;"/>'[:64]
for name, data in seeds.items():
    open(f"{out}/{name}", "wb").write(data)
print(f"wrote {len(seeds)} embedded-depth seeds")
