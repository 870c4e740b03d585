#!/usr/bin/env python3
# A temporal profile for docs/quality.md: one row of pixels of every frame stacked over time (time going
# down), each frame's row repeated 6 times: the truth, then the error |out - truth| x 16 (grey) of the
# per-frame rendering and of the temporally filtered one, so a person can see the error change from frame
# to frame (flicker) or hold still. Frames from `satlab quality --video --images DIR`.
#   tools/temporal_profile.py CASES_JSON IMAGES_DIR SOURCE ROW OUT.png
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "scripts"))
import png_util  # noqa: E402

cases, images, source, row, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
root = os.path.dirname(os.path.abspath(cases))
frames = sorted((c for c in json.load(open(cases))["cases"] if "sequence" in c), key=lambda c: c["frame"])
rows, rep, gap = [], 6, 4
for c in frames:
    tw, th, truth = png_util.read(os.path.join(root, c["reference"]))
    line = [truth(x, row) for x in range(tw)]
    for f in ("off", "gated"):
        _, _, px = png_util.read(os.path.join(images, f"{c['name']}_{source}_{f}.png"))
        line += [(255, 255, 255)] * gap
        for x in range(tw):
            e = min(255, 16 * sum(abs(a - b) for a, b in zip(px(x, row), truth(x, row))) // 3)
            line.append((e, e, e))
    rows += [line] * rep
w = len(rows[0])
png_util.write_rgb(out, w, len(rows), lambda x, y: rows[y][x])
print(f"wrote {out} ({w}x{len(rows)}: {len(frames)} frames, row {row})")
