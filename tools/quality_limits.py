#!/usr/bin/python3
"""Where `spread` loses against the thin-lens ground truth, and what each part of the loss is worth.

  tools/quality_limits.py SATLAB [--assets DIR] [--cases MANIFEST] [--json FILE]

--cases scores another manifest, such as the held-out cases of `gen_scene --truth DIR --holdout`.

Runs `SATLAB quality --backend cpu --modes spread,gather_box --highlights off --images TMP` on the bundled
cases, then for every case splits spread's squared error (8-bit RGB, as `satlab quality` scores it) over
regions of the frame, and reports what spread would gain over gather_box, whole image and occlusion band, if
one region were perfect (its pixels replaced by the reference's). These are oracles: they read the
reference, so they say where the error is, not what a filter could reach. The regions:

  thin    the silhouettes of thin near objects: pixels whose row or column meets, on both sides within
          6 px, a pixel at least 3 px farther (signed CoC): dof::hidden_of's rule, where the pinhole view
          holds none of the background the lens sees behind them;
  lights  pixels within max_radius + 1 of a pinhole pixel at 235 or more in some channel (not thin);
  border  pixels within max_radius of the frame's edge (not thin, not lights): the lens sees past it;
  all     the three together.

And one oracle of another kind, `kernel`: every pixel of |CoC| below 2 px whose neighbourhood (max_radius)
has one signed CoC within 0.5 px, filtered from the pinhole view by a 5 x 5 kernel symmetric under flips
and rotations (6 weights, one for all three channels), fitted by least squares in linear light per CoC bin
of 0.25 px (bins of at least 200 such pixels) on the case's own reference. It estimates what a better
small-aperture kernel could gain there; it is not a bound on every linear filter (the fit is in linear
light, the score in 8-bit sRGB, and the kernel replaces spread's pixels even where it does worse).

And `lens kernel`, which reads no reference: every pixel whose neighbourhood (max_radius) has one signed
CoC within 0.5 px, at any CoC, refiltered from the pinhole view by the thin lens's own kernel at its CoC
(a disc of that radius convolved with the pixel's square, in linear light, per 0.25 px bin): what the lens
does to a surface of one depth.

And `tent`, `quadratic`, `cubic`: the same pixels, the same way, but each by a separable B-spline kernel of
order 2, 3 or 4 (2, 3 or 4 boxes of one real width convolved, the kernels that repeated integration of a
SAT gives, as in Heckbert's filtering by repeated integration) whose second moment is the lens kernel's. They measure whether
smooth kernels from higher-order SATs would gain where the CoC is smooth.

python3-opencv is this script's tool only, never the app's.
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
    sys.exit("quality_limits.py: needs python3-opencv (apt-get install python3-opencv)")

GAP, STEP = 6, 3.0  # dof::kHiddenGap, dof::kHiddenStep


def srgb_to_radiance(v8, shoulder):
    x = v8 / 255.0
    lin = np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)
    return lin / (1.0 - shoulder * lin)  # 255 decodes to 1 / (1 - s), as core's response_decode


def radiance_to_srgb(v, shoulder):
    lin = np.clip(v / (1.0 + shoulder * np.maximum(v, 0.0)), 0.0, 1.0)
    x = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)
    return np.round(x * 255.0)


def signed_coc(case, depth16):
    lo, hi = case["near_depth"], case["far_depth"]
    d = depth16.astype(np.float64)
    d = (d - d.min()) / max(d.max() - d.min(), 1.0)  # the pipeline normalises the depth map by its min and max
    z = lo + d * (hi - lo)
    zf = lo + case["focus"] * (hi - lo)
    return case["aperture"] * (1.0 / z - 1.0 / zf)


def thin_mask(coc):
    """dof::hidden_of's rule: a pixel at least STEP farther on both sides within GAP, along a row or column
    (the frame's edges extended, as the pipeline's points beyond the frame copy the edge pixel)."""
    h, w = coc.shape
    pad = np.pad(coc, GAP, mode="edge")
    out = np.zeros((h, w), bool)
    for dx, dy in ((1, 0), (0, 1)):
        before = np.zeros((h, w), bool)
        after = np.zeros((h, w), bool)
        for d in range(1, GAP + 1):
            before |= pad[GAP - d * dy : GAP - d * dy + h, GAP - d * dx : GAP - d * dx + w] <= coc - STEP
            after |= pad[GAP + d * dy : GAP + d * dy + h, GAP + d * dx : GAP + d * dx + w] <= coc - STEP
        out |= before & after
    return out


def band_mask(coc, radius):
    """`satlab quality`'s occlusion band: within max_radius (Euclidean) of a CoC jump over 1 px."""
    edge = np.zeros(coc.shape, bool)
    jx = np.abs(np.diff(coc, axis=1)) > 1.0
    jy = np.abs(np.diff(coc, axis=0)) > 1.0
    edge[:, :-1] |= jx
    edge[:, 1:] |= jx
    edge[:-1, :] |= jy
    edge[1:, :] |= jy
    dist = cv2.distanceTransform((~edge).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    return dist <= radius


def smooth_mask(case, coc):
    """Pixels whose neighbourhood (max_radius) holds one signed CoC within 0.5 px."""
    k = 2 * int(case["max_radius"]) + 1
    return (cv2.dilate(coc, np.ones((k, k))) - cv2.erode(coc, np.ones((k, k)))) < 0.5


def kernel_oracle(case, pin, ref, coc, out):
    """Pixels of smooth small CoC refiltered by per-bin least-squares 5 x 5 kernels (see the docstring)."""
    s = case.get("response_shoulder", 0.0)
    h = 2
    pad = np.pad(srgb_to_radiance(pin, s), ((h, h), (h, h), (0, 0)), mode="edge")
    target = srgb_to_radiance(ref, s)
    classes = {}
    for dy in range(-h, h + 1):
        for dx in range(-h, h + 1):
            classes.setdefault(tuple(sorted((abs(dx), abs(dy)))), []).append((dx, dy))
    H, W = coc.shape
    feats = []
    for key in sorted(classes):
        acc = np.zeros((H, W, 3))
        for dx, dy in classes[key]:
            acc += pad[h + dy : h + dy + H, h + dx : h + dx + W]
        feats.append(acc)
    F = np.stack(feats, -1)
    a = np.abs(coc)
    smooth = smooth_mask(case, coc)
    result = out.copy()
    for b0 in np.arange(0.0, 2.0, 0.25):
        m = smooth & (a >= b0) & (a < b0 + 0.25)
        if m.sum() < 200:
            continue
        weights, *_ = np.linalg.lstsq(F[m].reshape(-1, F.shape[-1]), target[m].reshape(-1), rcond=None)
        result[m] = radiance_to_srgb(F[m] @ weights, s)
    return result


def lens_kernel(radius, n=32):
    """The thin lens's kernel on the pinhole view's pixels: the area of a disc of `radius` px within each
    pixel's square (the disc convolved with the square, as if each pinhole colour filled its square),
    integrated on an n x n grid per pixel, normalised."""
    R = int(np.ceil(radius)) + 1
    ys, xs = np.mgrid[-R : R + 1, -R : R + 1].astype(np.float64)
    k = np.zeros(xs.shape)
    for oy in (np.arange(n) + 0.5) / n - 0.5:
        for ox in (np.arange(n) + 0.5) / n - 0.5:
            k += (xs + ox) ** 2 + (ys + oy) ** 2 <= radius * radius
    if k.sum() == 0:
        k[R, R] = 1.0
    return k / k.sum()


def box1d(width):
    """A centred box of real width >= 1, unit mass: the two end taps carry the fractional part."""
    a = (width - 1.0) / 2.0
    n = int(np.ceil(a))
    k = np.ones(2 * n + 1)
    if n > 0:
        k[0] = k[-1] = a - (n - 1)
    return k / k.sum()


def box_variance(width):
    k = box1d(width)
    r = (len(k) - 1) // 2
    return float((k * np.arange(-r, r + 1) ** 2).sum())


def spline_kernel(radius, order):
    """A separable B-spline kernel of `order` (`order` boxes of one real width, convolved) with the second
    moment per axis of lens_kernel(radius): each box carries 1 / order of it. box1d's variance grows
    monotonically with the width (its fractional end taps are not a continuous box's (w^2 - 1) / 12), so the
    width is found by bisection."""
    K = lens_kernel(radius)
    R = (K.shape[0] - 1) // 2
    target = float((K.sum(0) * np.arange(-R, R + 1) ** 2).sum()) / order
    lo, hi = 1.0, 3.0
    while box_variance(hi) < target:
        hi *= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if box_variance(mid) < target else (lo, mid)
    b = box1d(0.5 * (lo + hi))
    k = np.array([1.0])
    for _ in range(order):
        k = np.convolve(k, b)
    return np.outer(k, k)


def lens_oracle(case, pin, coc, smooth, out, order=0):
    """`smooth` pixels (smooth_mask, any CoC) refiltered from the pinhole view by the lens's own kernel at
    their CoC (lens_kernel at the middle of each 0.25 px bin), in linear light: no fit, the reference is not
    read. order > 0: by spline_kernel of that order instead."""
    s = case.get("response_shoulder", 0.0)
    lin = srgb_to_radiance(pin, s)
    a = np.abs(coc)
    result = out.copy()
    for b0 in np.arange(0.0, float(case["max_radius"]) + 0.25, 0.25):
        m = smooth & (a >= b0) & (a < b0 + 0.25)
        if not m.any():
            continue
        K = spline_kernel(b0 + 0.125, order) if order else lens_kernel(b0 + 0.125)
        f = np.stack([cv2.filter2D(lin[:, :, i], -1, K, borderType=cv2.BORDER_REPLICATE) for i in range(3)], 2)
        result[m] = radiance_to_srgb(f[m], s)
    return result


def psnr(se_sum, n):
    return 10 * np.log10(255.0**2 * n / se_sum)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("satlab")
    ap.add_argument("--assets", default=os.environ.get("SATLAB_ASSETS", "assets"))
    ap.add_argument("--cases", help="ground-truth manifest (default: ASSETS/ground_truth/cases.json)")
    ap.add_argument("--json")
    args = ap.parse_args()
    cases_file = args.cases or os.path.join(args.assets, "ground_truth", "cases.json")
    truth = os.path.dirname(os.path.abspath(cases_file))
    manifest = json.load(open(cases_file))
    cases = manifest["cases"] if isinstance(manifest, dict) else manifest
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, SATLAB_ASSETS=os.path.abspath(args.assets))
        cmd = [args.satlab, "quality", "--backend", "cpu", "--modes", "spread,gather_box", "--highlights", "off",
               "--runs", "1", "--images", tmp, "--cases", cases_file]
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["exit status %d" % run.returncode])[-1]
            sys.exit("quality_limits.py: satlab quality failed: " + last)
        print("gain over gather_box, whole / band dB (target +8 / +8)")
        print("case                    spread       thin         lights       border       all          kernel       lens kernel"
              "  tent         quadratic    cubic")
        for case in cases:
            name = case["name"]
            read = lambda p: cv2.imread(p, cv2.IMREAD_COLOR)
            ref = read(os.path.join(truth, case["reference"]))[:, :, ::-1].astype(np.float64)
            pin = read(os.path.join(truth, case["image"]))[:, :, ::-1].astype(np.float64)
            coc = signed_coc(case, cv2.imread(os.path.join(truth, case["depth"]), cv2.IMREAD_UNCHANGED))
            out = read(os.path.join(tmp, name + "_spread.png"))[:, :, ::-1].astype(np.float64)
            box = read(os.path.join(tmp, name + "_gather_box.png"))[:, :, ::-1].astype(np.float64)
            R = int(case["max_radius"])
            se = ((out - ref) ** 2).mean(2)
            se_box = ((box - ref) ** 2).mean(2)
            band = band_mask(coc, case["max_radius"])
            thin = thin_mask(coc)
            lit = cv2.dilate((pin.max(2) >= 235).astype(np.uint8),
                             cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * R + 3, 2 * R + 3))) > 0
            lights = lit & ~thin
            border = np.zeros(se.shape, bool)
            border[:R], border[-R:], border[:, :R], border[:, -R:] = True, True, True, True
            border &= ~thin & ~lights
            regions = {"thin": thin, "lights": lights, "border": border, "all": thin | lights | border}
            kern = kernel_oracle(case, pin, ref, coc, out)
            se_kern = ((kern - ref) ** 2).mean(2)
            smooth = smooth_mask(case, coc)
            lens = lens_oracle(case, pin, coc, smooth, out)
            se_lens = ((lens - ref) ** 2).mean(2)

            def gains(err):
                return (psnr(err.sum(), err.size) - psnr(se_box.sum(), se_box.size),
                        psnr(err[band].sum(), band.sum()) - psnr(se_box[band].sum(), band.sum()))

            row = {"case": name, "spread_gain": gains(se), "share": {}, "if_perfect": {}}
            for key, m in regions.items():
                err = np.where(m, 0.0, se)
                row["share"][key] = float(se[m].sum() / se.sum())
                row["if_perfect"][key] = gains(err)
            row["if_perfect"]["kernel"] = gains(se_kern)
            row["lens_kernel"] = gains(se_lens)  # not an oracle: it reads no reference
            row["smooth_share"] = float(smooth.mean())
            row["spline_kernels"] = {}
            for order, label in ((2, "tent"), (3, "quadratic"), (4, "cubic")):
                spl = lens_oracle(case, pin, coc, smooth, out, order)
                row["spline_kernels"][label] = gains(((spl - ref) ** 2).mean(2))
            rows.append(row)
            cell = lambda g: "%+5.2f/%+5.2f" % g
            print("%-23s %s" % (name, " ".join(cell(g) for g in [row["spread_gain"]] + [
                row["if_perfect"][k] for k in ("thin", "lights", "border", "all", "kernel")] + [row["lens_kernel"]] + [
                row["spline_kernels"][k] for k in ("tent", "quadratic", "cubic")])))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
