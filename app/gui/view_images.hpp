// The host images behind the SAT, difference and raw-depth views (plain C++; the viewer colour-maps them).
#pragma once
#include <cstddef>

#include "core/image.hpp"

namespace satlab::gui {

// The input's summed-area table on a log scale, log(1 + S) from its smallest entry (top left) to its
// largest (bottom right) as 0..1: per channel in 8 bits (RGB, alpha opaque), or with `luminance` of
// Rec. 709 luminance in 16 bits (high byte in R and B, low byte in G: the shader's contour lines need
// more than 256 steps). Sums in float64, so unlike the pipeline's wrap-around uint32 SAT the picture never
// folds over on large images.
ImageRGBA8 log_sat_image(const ImageRGBA8& image, bool luminance);

// Per pixel, the largest absolute RGB difference between two images of one size, in 8-bit levels.
struct Difference {
  ImageF levels;         // 1 channel
  int max = 0;           // largest difference
  size_t differing = 0;  // pixels that differ at all
};
Difference difference(const ImageRGBA8& a, const ImageRGBA8& b);

// `depth` (1 channel) on the colour scale of the depth view: mapped as normalise_depth maps `scale` (the
// depth the pipeline was given, any size), d = (depth - min) / (max - min) with min and max of `scale`,
// clamped to [0,1]; all 0 where `scale` is flat. Equal depths get equal colours in the raw-depth and depth
// views. Throws satlab::Error on an empty `scale` or a depth of several channels.
ImageF depth_on_scale_of(const ImageF& depth, const ImageF& scale);

}  // namespace satlab::gui
