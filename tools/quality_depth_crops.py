#!/usr/bin/env python3
# docs/quality-depth-crops.png: for two cases, the `reference | spread` crops of `satlab quality --crops DIR`
# (one per depth source and refiner) stacked with a label each, so a person can judge what a refiner does to
# the picture. Needs python3-opencv (a docs tool, not a dependency of satlab).
#   tools/quality_depth_crops.py CROPS_DIR OUT.png
import sys
import cv2
import numpy as np

crops, out = sys.argv[1], sys.argv[2]
cases = ["default_near_large", "occlusion_middle_large"]
rows = [("exact depth", "{c}_spread.png"),
        ("phone 1/4, none (bilinear)", "{c}_phone_none_spread.png"),
        ("phone 1/4, guided", "{c}_phone_guided_spread.png"),
        ("phone 1/4, wmedian (default)", "{c}_phone_wmedian_spread.png"),
        ("brush, none", "{c}_brush_none_spread.png"),
        ("brush, wmedian (default)", "{c}_brush_wmedian_spread.png")]
columns = []
for c in cases:
    tiles = []
    for label, pattern in rows:
        img = cv2.imread(f"{crops}/{pattern.format(c=c)}")
        if img is None:
            sys.exit(f"missing {pattern.format(c=c)} in {crops}")
        bar = np.full((22, img.shape[1], 3), 24, np.uint8)
        cv2.putText(bar, f"{c}: {label}", (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    (230, 230, 230), 1, cv2.LINE_AA)
        tiles += [bar, img, np.full((6, img.shape[1], 3), 24, np.uint8)]
    columns.append(np.vstack(tiles))
for k, col in enumerate(columns):  # a header: which half is which
    head = np.full((22, col.shape[1], 3), 48, np.uint8)
    cv2.putText(head, "left: thin-lens reference | right: spread", (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                (255, 255, 255), 1, cv2.LINE_AA)
    columns[k] = np.vstack([head, col])
h = max(col.shape[0] for col in columns)
columns = [np.vstack([col, np.full((h - col.shape[0], col.shape[1], 3), 24, np.uint8)]) for col in columns]
cv2.imwrite(out, np.hstack([columns[0], np.full((h, 8, 3), 24, np.uint8), columns[1]]),
            [cv2.IMWRITE_PNG_COMPRESSION, 9])
