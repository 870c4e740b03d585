#!/usr/bin/python3
"""Writes the small seed corpus of the loader fuzz targets (tests/fuzz/corpus): one tiny file per
format the loaders accept, plus a few broken ones. Uses Debian's python3-pil. Run from the repo root."""
import io
import os
import struct

import numpy as np
from PIL import Image

root = "tests/fuzz/corpus"
os.makedirs(f"{root}/image", exist_ok=True)
os.makedirs(f"{root}/depth", exist_ok=True)
rng = np.random.default_rng(7)


def save(img, fmt, **kw):
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()


rgba = Image.fromarray(rng.integers(0, 256, (6, 5, 4), dtype=np.uint8), "RGBA")
rgb = rgba.convert("RGB")
grey16 = Image.fromarray(rng.integers(0, 65536, (4, 7), dtype=np.uint16).astype(np.int32), "I")
images = {
    "rgba.png": save(rgba, "PNG"),
    "grey.png": save(rgb.convert("L"), "PNG"),
    "palette.png": save(rgb.convert("P"), "PNG"),
    "grey16.png": save(grey16, "PNG"),
    "small.jpg": save(rgb, "JPEG", quality=80),
    "small.bmp": save(rgb, "BMP"),
    "small.tga": save(rgba, "TGA"),
}
# Radiance HDR, flat (no RLE) scanlines of RGBE pixels.
hdr = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 3 +X 4\n" + bytes(rng.integers(0, 256, 3 * 4 * 4, dtype=np.uint8))
images["small.hdr"] = hdr
images["truncated.png"] = images["rgba.png"][:40]
images["huge_header.png"] = images["rgba.png"][:16] + struct.pack(">II", 100000, 100000) + images["rgba.png"][24:]
for name, data in images.items():
    open(f"{root}/image/{name}", "wb").write(data)

# Depth inputs: the fuzz target's first byte picks the extension (odd: .pfm, even: .png).
pfm = b"Pf\n3 2\n-1.0\n" + np.linspace(0, 1, 6, dtype="<f4").tobytes()
pfm_be = b"Pf\n2 2\n1.0\n" + np.linspace(1, 4, 4, dtype=">f4").tobytes()
pfm_colour = b"PF\n2 1\n-1.0\n" + np.arange(6, dtype="<f4").tobytes()
depth = {
    "d.pfm": b"\x01" + pfm,
    "d_big_endian.pfm": b"\x01" + pfm_be,
    "d_colour.pfm": b"\x01" + pfm_colour,
    "d_truncated.pfm": b"\x01" + pfm[:-5],
    "d_nan.pfm": b"\x01" + b"Pf\n1 1\n-1.0\n" + np.array([np.nan], dtype="<f4").tobytes(),
    "d16.png": b"\x00" + images["grey16.png"],
    "d8.png": b"\x00" + images["grey.png"],
    "d.hdr": b"\x00" + hdr,
}
for name, data in depth.items():
    open(f"{root}/depth/{name}", "wb").write(data)
print(f"wrote {len(images)} image and {len(depth)} depth seeds")
