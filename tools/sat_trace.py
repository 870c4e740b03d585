#!/usr/bin/env python3
"""Summarise sat_lookback_2d's float-tile timeline (a -DSATLAB_SAT_TRACE=ON build, run as
`satlab bench sat --trace FILE --variants sat_lookback_2d --sizes WxH --no-check --no-blur`): per tile the
time to load, to the first barrier, each look-back, the rebuild, its life; how many tiles are in each
phase over the kernel; and the look-backs by tile column (the row chain's front). Needs numpy
(/usr/bin/python3 on Debian).
  tools/sat_trace.py FILE..."""
import sys

import numpy as np

# Event slots written by the kernel (gpu/sat/sat_lookback_2d_f32.cuh, SAT_TRACE).
START, LOADED, B1, COL, CORNER, ROW, B3, END = 0, 1, 2, 3, 4, 5, 8, 9


def summarise(path):
    raw = open(path, "rb").read()
    ntx, nty, _, _ = np.frombuffer(raw[:16], dtype=np.int32)
    t = np.frombuffer(raw[16:], dtype=np.uint64).reshape(-1, 16).astype(np.int64)
    T = (t[:, :10] - t[:, START].min()) / 1e3  # microseconds from the first tile's start
    print(f"{path}: {ntx} x {nty} tiles, kernel span {T[:, END].max():.1f} us")
    phases = [(START, LOADED, "thread 0's loads"), (LOADED, B1, "to the first barrier"),
              (B1, COL, "column look-back"), (B1, ROW, "row look-backs (warp 4)"),
              (B1, CORNER, "corner look-back"), (B1, B3, "first to third barrier"), (B3, END, "rebuild"),
              (START, END, "life")]
    for a, b, name in phases:
        d = T[:, b] - T[:, a]
        p10, p50, p90 = np.percentile(d, [10, 50, 90])
        print(f"  {name:24s} mean {d.mean():6.2f}  p10 {p10:6.2f}  p50 {p50:6.2f}  p90 {p90:6.2f} us")
    grid = np.linspace(0, T[:, END].max(), 24)
    count = lambda a, b: " ".join(f"{int(((T[:, a] <= x) & (T[:, b] > x)).sum()):3d}" for x in grid)
    print("  us         " + " ".join(f"{x:3.0f}" for x in grid))
    print("  loading    " + count(START, B1))
    print("  look-backs " + count(B1, B3))
    print("  rebuild    " + count(B3, END))
    j = np.arange(len(T)) % ntx
    step = max(1, ntx // 8)
    for lo in range(0, ntx, step):
        m = (j >= lo) & (j < lo + step)
        print(f"  tile columns {lo:3d}-{lo + step - 1:3d}: row look-back {np.mean(T[m, ROW] - T[m, B1]):5.2f}"
              f"  corner {np.mean(T[m, CORNER] - T[m, B1]):5.2f}  life {np.mean(T[m, END] - T[m, START]):5.2f} us")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for f in sys.argv[1:]:
        summarise(f)
