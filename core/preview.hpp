// A preview frame: the filter run on the visible region of an image at the resolution it is displayed at,
// so that a frame whose full-resolution run misses the frame budget still follows a slider. The region
// (with a halo of the filter's reach around it, so its edges see their neighbours) is box-filtered down,
// every parameter measured in pixels is scaled by the same factor, and the whole frame's depth
// statistics (range, histogram: Pipeline::set_frame_stats) stand for the region's own, so the region's
// depth normalises and its layers split as in the full frame. The preview approximates the full-resolution
// result box-filtered to the same size (tests/cpu/preview_test.cpp measures how closely, per filter and DoF
// mode); what it cannot scale are the DoF modes' own constants in pixels (the spread's hidden-background gap,
// its 2 x 2 fill blocks), the fills of the layered and spread modes, whose growing boxes may reach past the
// halo, and highlights thinner than a preview pixel, which the box filter dims below the threshold.
#pragma once
#include "core/frame_stats.hpp"
#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

// `p` for the image downscaled by `scale` (output pixels per input pixel, in (0, 1]): every length in
// pixels scaled, box_radius (rounded), max_radius and aperture (K: the CoC in pixels per unit of inverse
// depth), and the highlight sprite cap by scale^2 (the highlights found scale with the area; at least 1).
// Depths, focus, the camera response and counts of layers or blades stay. Throws satlab::Error for a scale
// outside (0, 1].
Params scale_params(const Params& p, double scale);

// How far (in pixels) a filter of `p` reaches from a pixel: the box radius, or the DoF max radius.
float filter_reach(const Params& p);

// Area-average (box filter) of `region` of the image onto width x height: each output pixel the mean of
// the input it covers, input pixels cut by its footprint's edges weighted by the part covered. RGBA8 is
// averaged per channel and rounded; ImageF per channel (NaN spreads to the pixels whose footprint holds
// one). Throws satlab::Error unless region lies within the image and 1 <= width <= region's width (and
// the same for heights). threads <= 0: default_threads().
ImageRGBA8 downscale_box(const ImageRGBA8& image, const PixelRect& region, int width, int height,
                         int threads = 0);
ImageF downscale_box(const ImageF& image, const PixelRect& region, int width, int height, int threads = 0);

// What a preview renders. `visible`: the image pixels shown; `scale`: preview pixels per image pixel, in
// (0, 1] (the display's pixels per image pixel, at most 1); `reach`: how far the filter reaches, in image
// pixels (filter_reach, or a bound of it that changes less often: the halo, and with it the preview's
// inputs, then stay while a slider moves the radius).
struct PreviewPlan {
  PixelRect source;  // image pixels rendered: `visible` and a halo of the filter's reach, within the image
  int width = 0, height = 0;  // the preview's size: source times scale, rounded, at least 1
  double scale = 1;           // as asked
};
// Throws satlab::Error for an empty or out-of-image `visible` or a scale outside (0, 1].
PreviewPlan plan_preview(int image_width, int image_height, const PixelRect& visible, double scale,
                         float reach);

// The statistics of the whole depth map that a preview of any region of it is given
// (Pipeline::set_frame_stats): its range as minmax_reduce takes it, the histogram of the depth normalised by
// it; no layer sums (they depend on the parameters: the preview's pipeline takes its own). An empty depth:
// valid, without depth.
FrameStats whole_frame_stats(const ImageF& depth, int threads = 0);

}  // namespace satlab
