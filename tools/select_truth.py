#!/usr/bin/env python3
# Subject select against the truth of tools/gen_cutouts' scenes: for each scene of a cases.json, one click
# inside each object of at least 2% of the frame (the manifest's "clicks"), `satlab depth select` from that
# click alone, and the IoU of its matte (alpha >= 1/2) with the object's visible pixels (SCENE_objects.png).
#   tools/select_truth.py SATLAB CASES_JSON [--backend cpu|gpu] [--params SPEC]   (SPEC: depth select --params)
import json, os, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "scripts"))
import png_util  # noqa: E402

satlab, manifest = sys.argv[1], sys.argv[2]
backend = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "cpu"
params = ["--params", sys.argv[sys.argv.index("--params") + 1]] if "--params" in sys.argv else []
root = os.path.dirname(os.path.abspath(manifest))
seen, rows = set(), []
with tempfile.TemporaryDirectory() as tmp:
    for c in json.load(open(manifest))["cases"]:
        if c["scene"] in seen:
            continue
        seen.add(c["scene"])
        image = os.path.join(root, c["image"])
        w, h, objects = png_util.read(os.path.join(root, c["objects"]))
        for k in c["clicks"]:
            out = os.path.join(tmp, "alpha.png")
            subprocess.run([satlab, "depth", "select", image, "--subject", f"{k['x']},{k['y']}", "--out", out,
                            "--backend", backend] + params, check=True, capture_output=True)
            _, _, alpha = png_util.read(out)
            label = k["object"] / 255
            both = either = 0
            for y in range(h):
                for x in range(w):
                    t = abs(objects(x, y) - label) < 0.5 / 255
                    a = alpha(x, y) >= 0.5
                    both += t and a
                    either += t or a
            iou = both / either
            rows.append((c["scene"], k["object"], k["pixels"] / (w * h), iou))
            print(f"{c['scene']:16s} object {k['object']}  {100 * k['pixels'] / (w * h):5.1f}% of the frame  "
                  f"click ({k['x']}, {k['y']})  IoU {iou:.4f}")
met = sum(1 for r in rows if r[3] >= 0.95)
print(f"IoU >= 0.95: {met} of {len(rows)} objects; worst {min(r[3] for r in rows):.4f}")
