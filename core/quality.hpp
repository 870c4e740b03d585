// Image quality against a reference, for `satlab quality` and its tests.
//  - PSNR over the R, G, B channels of 8-bit images: 10 log10(255^2 / MSE), MSE the mean squared
//    difference over every channel of every (masked) pixel; +infinity when the images are equal there.
//  - SSIM (Wang, Bovik, Sheikh and Simoncelli 2004) on each of R, G, B of the 8-bit values (L = 255,
//    K1 = 0.01, K2 = 0.03), with an 11 x 11 Gaussian window of sigma 1.5; near the border the window is
//    clipped to the image and its weights renormalised, so every pixel has a value. A pixel's SSIM is
//    the mean of its three channels' values; an image's (or a mask's) SSIM the mean over its pixels.
//  - The occlusion band: pixels within a radius (Euclidean, in pixels) of a depth edge, where a depth
//    edge is a pixel whose CoC differs from one of its 4 neighbours' by more than a jump (in pixels).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

using Mask = std::vector<uint8_t>;  // width * height, nonzero: in the mask

struct Score {
  double psnr = 0;    // dB; +infinity where the images are equal; NaN over an empty mask
  double ssim = 0;    // NaN over an empty mask
  size_t pixels = 0;  // pixels scored
};

// Throws satlab::Error when the sizes differ (or a mask has the wrong size).
double psnr(const ImageRGBA8& a, const ImageRGBA8& b, const Mask* mask = nullptr);
// The per-pixel SSIM map (1 channel).
ImageF ssim_map(const ImageRGBA8& a, const ImageRGBA8& b);
// PSNR and SSIM over the whole image and over `mask`.
struct Scores {
  Score whole, band;
};
Scores score(const ImageRGBA8& a, const ImageRGBA8& b, const Mask& band);

// Depth edges of a CoC map (1 channel): |coc(p) - coc(q)| > jump for a 4-neighbour q. NaN never
// counts as an edge.
Mask depth_edges(const ImageF& coc, float jump);
// Pixels within `radius` of a pixel of `edges` (the edges included).
Mask dilate(const Mask& edges, int width, int height, float radius);
size_t count(const Mask& m);

}  // namespace satlab

namespace satlab {

// The CoC jump (pixels) between 4-neighbours that makes a depth edge for `satlab quality`.
constexpr float kDepthEdgeJump = 1.0f;
// The occlusion band of a case: depth edges of the CoC map of `depth` (raw, normalised by its min/max)
// under p (kDepthEdgeJump), dilated by p.max_radius.
Mask occlusion_band(const ImageF& depth, const Params& p);

// The warping error of a clip's frame (Lai et al., ECCV 2018, with the motion known): the mean over the
// pixels of `cur` that were visible in `prev` of the squared RGB difference (channels in [0,1], summed)
// between cur and prev at where that pixel was. `ids_cur`, `ids_prev`: each pixel's object (0..255);
// `motion[id]`: how far object id moved since prev, in pixels (rounded to whole pixels). A pixel is visible
// in prev where the pixel it came from lies in the frame and held the same object (disocclusions are left
// out). `valid` receives how many pixels counted; NaN where none.
double warping_error(const ImageRGBA8& cur, const ImageRGBA8& prev, const std::vector<uint8_t>& ids_cur,
                     const std::vector<uint8_t>& ids_prev, const std::vector<std::pair<double, double>>& motion,
                     size_t* valid = nullptr);

// A point light's bokeh against the truth's (`satlab quality` on the points scene): in the window of
// radius `reach` around the light's centre (x, y), each image's footprint is its pixels whose luminance
// (R + G + B of the 8-bit values) is at least half the window's peak; `iou` is the footprints' intersection
// over their union, `shift` the distance in pixels between their centroids (each footprint's pixels
// weighed equally). A window whose peak is 0 in either image has iou 0 and shift NaN.
struct DotShape {
  double iou = 0, shift = 0;
};
DotShape dot_shape(const ImageRGBA8& truth, const ImageRGBA8& out, double x, double y, int reach);

}  // namespace satlab
