#!/usr/bin/env python3
# docs/quality-cutouts-crops.png: 3x crops of two held-out cut-out cases, reference | exact depth | phone
# depth unrefined | phone depth with wmedian, from the result images `satlab quality --images DIR` writes:
#   satlab quality --cases assets/ground_truth/cutouts_heldout/cases.json --backend cpu --modes spread \
#     --depth exact,phone --refine none,wmedian --images DIR && tools/cutout_crops.py DIR OUT.png
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "scripts"))
import png_util  # noqa: E402

images, out = sys.argv[1], sys.argv[2]
truth = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "ground_truth", "cutouts_heldout")
rows = [("hubble_cat_focus4.0", 200, 30), ("coffee_stars_focus2.8", 40, 60)]  # case, crop's corner
cw, ch, z, gap = 96, 64, 3, 4
def files(case):
    return [os.path.join(truth, case + ".png")] + [os.path.join(images, f"{case}_{s}spread.png")
                                                   for s in ("", "phone_none_", "phone_wmedian_")]
imgs = [[png_util.read(f)[2] for f in files(c)] for c, _, _ in rows]
W, H = 4 * cw * z + 3 * gap, len(rows) * ch * z + (len(rows) - 1) * gap
def px(x, y):
    r, yy = divmod(y, ch * z + gap)
    c, xx = divmod(x, cw * z + gap)
    if yy >= ch * z or xx >= cw * z:
        return (255, 255, 255)
    _, x0, y0 = rows[r]
    return imgs[r][c](x0 + xx // z, y0 + yy // z)
png_util.write_rgb(out, W, H, px)
