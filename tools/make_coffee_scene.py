#!/usr/bin/python3
"""Makes the second bundled scene: assets/coffee.png (a photograph) and assets/coffee.depth.png (a depth
map shaped by hand for it: 16-bit, 0 near .. 65535 far).

The photograph is scikit-image's coffee.png (Rachel Michetti, courtesy of Pikolo Espresso Bar; CC0, no
copyright restrictions), which Debian's python3-skimage ships. Run once; the outputs are committed, so
neither the build nor the tests need python3-skimage:
    apt-get install python3-skimage && /usr/bin/python3 tools/make_coffee_scene.py
"""
import os
import sys

import numpy as np
from PIL import Image

SOURCE = "/usr/lib/python3/dist-packages/skimage/data/coffee.png"
ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")


def inside_ellipse(x, y, cx, cy, rx, ry):
    return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1.0


def depth_map(w, h):
    """Normalised depth: the table is a plane rising towards the top of the frame, the saucer lies on
    it, the cup and spoon stand up from it at one depth, the dark corner at the top left is farthest."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    table = 0.08 + 0.82 * (1.0 - y / (h - 1)) + 0.06 * (1.0 - x / (w - 1))  # far at the top, a little left
    d = table.copy()
    d[x / 240.0 + y / 110.0 < 1.0] = 1.0  # the wall behind the table
    saucer = inside_ellipse(x, y, 278, 228, 202, 160)
    d[saucer] = table[saucer] - 0.04  # lying on the table, its rim a little above it
    cup = inside_ellipse(x, y, 291, 112, 120, 96) | ((x > 176) & (x < 410) & (y > 112) & (y < 292))
    cup |= inside_ellipse(x, y, 290, 250, 118, 45)  # the cup's rounded base
    cup |= inside_ellipse(x, y, 225, 268, 32, 40)  # the handle
    spoon = inside_ellipse(x, y, 366, 284, 42, 42) | ((x > 372) & (x < 420) & (y > 66) & (y < 260))
    upright = cup | spoon
    d[upright] = 0.33  # standing at the depth of the saucer's middle
    return np.clip(d, 0.0, 1.0)


def soften(d, radius=2, passes=2):
    """Soft edges (real depth maps are not binary at object boundaries): repeated separable box blurs."""
    for _ in range(passes):
        for axis in (0, 1):
            p = np.pad(d, [(radius, radius) if a == axis else (0, 0) for a in (0, 1)], mode="edge")
            c = np.cumsum(np.insert(p, 0, 0.0, axis=axis), axis=axis)
            n = d.shape[axis]
            hi = np.take(c, np.arange(2 * radius + 1, n + 2 * radius + 1), axis=axis)
            lo = np.take(c, np.arange(0, n), axis=axis)
            d = (hi - lo) / (2 * radius + 1)
    return d


def main():
    if not os.path.exists(SOURCE):
        sys.exit(f"{SOURCE} not found: apt-get install python3-skimage")
    img = Image.open(SOURCE).convert("RGB")
    w, h = img.size
    d = depth_map(w, h)
    d16 = Image.fromarray(np.round(soften(d) * 65535).astype(np.uint16))
    img.save(os.path.join(ASSETS, "coffee.png"), optimize=True)
    d16.save(os.path.join(ASSETS, "coffee.depth.png"))
    print(f"wrote assets/coffee.png and assets/coffee.depth.png ({w}x{h})")


if __name__ == "__main__":
    main()
