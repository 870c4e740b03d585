#!/usr/bin/python3
"""Scores stereo matchers on the rectified pairs of tools/gen_stereo (exact disparity, occlusions masked):
satlab's `depth stereo` against OpenCV's StereoBM and StereoSGBM (the peer anchors; Debian's python3-opencv,
a tool of this script only, never of the app). satlab runs four ways: the matcher alone (`--refine none`), the
same without its row fill (`--no-fill`), as it ships (refined by the default refiner, `auto`), and refined by
the guided filter (`--refine guided`). About 11 s on a CPU for the two 640x360 pairs.

  tools/stereo_bench.py SATLAB PAIRS_DIR [--max-disparity N] [--json FILE]

The measure is the bad-pixel rate: the fraction of non-occluded pixels (truth > 0 in NAME_disp.png) whose
disparity is off by more than 1 px. Two readings per method:
  out    the map as the method returns it, a pixel without a disparity counting as bad;
  filled every method's missing pixels filled the same way first (the nearest valid disparities to the left
         and right on the row, the smaller one: the KITTI devkit's background interpolation), so that a
         method is not scored on whether it fills.
Density is the fraction of non-occluded pixels the method gave a disparity.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("stereo_bench.py: needs python3-opencv (apt-get install python3-opencv)")


def fill_background(d):
    """Missing (<= 0 or NaN) pixels take the smaller of the nearest valid values left and right on the row."""
    out = d.copy()
    h, w = d.shape
    for y in range(h):
        row = d[y]
        valid = np.isfinite(row) & (row > 0)
        if not valid.any():
            continue
        idx = np.arange(w)
        left = np.where(valid, idx, -1)
        left = np.maximum.accumulate(left)
        right = np.where(valid, idx, w)
        right = np.minimum.accumulate(right[::-1])[::-1]
        lv = np.where(left >= 0, row[np.clip(left, 0, w - 1)], np.inf)
        rv = np.where(right < w, row[np.clip(right, 0, w - 1)], np.inf)
        out[y] = np.where(valid, row, np.minimum(lv, rv))
    return out


def score(d, truth):
    mask = truth > 0
    n = mask.sum()
    valid = np.isfinite(d) & (d > 0)
    err = np.abs(np.where(valid, d, 0) - truth)
    bad_out = ((~valid) | (err > 1.0)) & mask
    f = fill_background(np.where(valid, d, 0).astype(np.float64))
    bad_filled = ((~np.isfinite(f)) | (np.abs(np.nan_to_num(f, posinf=1e9) - truth) > 1.0)) & mask
    return {"bad_out": float(bad_out.sum() / n), "bad_filled": float(bad_filled.sum() / n),
            "density": float((valid & mask).sum() / n)}


def opencv_bm(left, right, num):
    gl, gr = (cv2.cvtColor(i, cv2.COLOR_BGR2GRAY) for i in (left, right))
    bm = cv2.StereoBM_create(numDisparities=num, blockSize=9)
    return bm.compute(gl, gr).astype(np.float64) / 16.0  # fixed point, x16; invalid < 0


def opencv_sgbm(left, right, num):
    bs = 5  # the parameters of OpenCV's own stereo_match sample, with 3-channel P1/P2
    sgbm = cv2.StereoSGBM_create(minDisparity=0, numDisparities=num, blockSize=bs, P1=8 * 3 * bs * bs,
                                 P2=32 * 3 * bs * bs, disp12MaxDiff=1, uniquenessRatio=10,
                                 speckleWindowSize=100, speckleRange=32)
    return sgbm.compute(left, right).astype(np.float64) / 16.0


def satlab(binary, lp, rp, maxd, extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "d.png")
        subprocess.run([binary, "depth", "stereo", lp, rp, "--out", out, "--max-disparity", str(maxd)] + extra,
                       check=True, stdout=subprocess.DEVNULL)
        return cv2.imread(out, cv2.IMREAD_UNCHANGED).astype(np.float64) / 256.0  # 0: none


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("satlab")
    ap.add_argument("pairs")
    ap.add_argument("--max-disparity", type=int, default=63)
    ap.add_argument("--json")
    a = ap.parse_args()
    num = (a.max_disparity + 16) // 16 * 16  # OpenCV: a multiple of 16 covering 0..max
    pairs = json.load(open(os.path.join(a.pairs, "pairs.json")))
    sat = lambda extra: lambda l, r, lp, rp: satlab(a.satlab, lp, rp, a.max_disparity, extra)
    methods = [
        ("OpenCV StereoBM (9x9)", lambda l, r, lp, rp: opencv_bm(l, r, num)),
        ("OpenCV StereoSGBM (5x5, sample parameters)", lambda l, r, lp, rp: opencv_sgbm(l, r, num)),
        # The matcher alone (--refine none: what depth stereo gave before refiners existed), without its row
        # fill, then as it ships (refined by the default refiner) and with the guided filter.
        ("satlab depth stereo --refine none", sat(["--refine", "none"])),
        ("satlab depth stereo --refine none --no-fill", sat(["--refine", "none", "--no-fill"])),
        ("satlab depth stereo (default: --refine auto)", sat([])),
        ("satlab depth stereo --refine guided", sat(["--refine", "guided"])),
    ]
    rows = []
    for p in pairs:
        lp, rp = (os.path.join(a.pairs, p[k]) for k in ("left", "right"))
        left, right = cv2.imread(lp, cv2.IMREAD_COLOR), cv2.imread(rp, cv2.IMREAD_COLOR)
        truth = cv2.imread(os.path.join(a.pairs, p["disparity"]), cv2.IMREAD_UNCHANGED).astype(np.float64) / 256.0
        for name, run in methods:
            s = score(run(left, right, lp, rp), truth)
            rows.append({"scene": p["scene"], "method": name, **s})
    print("| scene | method | bad > 1 px (as output) | bad > 1 px (holes filled alike) | density |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['scene']} | {r['method']} | {100 * r['bad_out']:.2f}% | {100 * r['bad_filled']:.2f}% | "
              f"{100 * r['density']:.1f}% |")
    if a.json:
        json.dump({"max_disparity": a.max_disparity, "rows": rows}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
