// Guided filter (He, Sun and Tang, "Guided Image Filtering", ECCV 2010): edge-aware smoothing of p that
// follows the edges of the guide I. Per window w_k of radius r: q = a_k . I + b_k minimises
// sum (a_k . I + b_k - p)^2 + eps |a_k|^2, so a_k = (Sigma_k + eps U)^-1 cov_k(I, p), b_k = mean_k(p) - a_k .
// mean_k(I); the output averages a and b over the windows holding each pixel: q = mean(a) . I + mean(b).
// Every window mean is a box sum from a summed-area table divided by the box's pixel count, with boxes
// clipped to the image (so the cost is independent of r). Gray: one guide channel, Sigma a scalar.
//
// The reference centres I (per channel) and p on their image means (rounded to float) before the SATs:
// the filter is invariant to constant offsets (a unchanged, b shifts), and the smaller magnitudes keep the
// GPU's float SATs accurate. Sums are float64 (sat_float), the solve is float64.
#pragma once
#include <array>

#include "core/image.hpp"

namespace satlab {

struct GuidedParams {
  int radius = 8;     // window (2r+1)^2, clipped to the image
  float eps = 1e-3f;  // regularisation, > 0 (guide values in [0,1])
  bool gray = false;  // gray guide (luma) instead of the 3x3 colour covariance
};
constexpr int kMaxGuidedRadius = 1 << 15;
// Throws satlab::Error naming the bad field (radius outside [0, kMaxGuidedRadius], eps not finite > 0).
void validate(const GuidedParams& g);

// Luma of an sRGB-valued guide (Rec. 709 weights on the stored values); a 1-channel guide is returned as is.
ImageF guide_luma(const ImageF& guide, int threads = 0);

// q for p (1 channel, same size as guide) guided by `guide` (1 channel, or 3+ channels of which the first
// three are used; values in [0,1], sRGB as stored). gray, or a 1-channel guide: the gray filter on
// guide_luma(guide). Unclamped output, 1 channel. Throws satlab::Error on mismatched sizes/bad params.
ImageF guided_filter(const ImageF& guide, const ImageF& p, int radius, float eps, bool gray, int threads = 0);
inline ImageF guided_filter(const ImageF& guide, const ImageF& p, const GuidedParams& g, int threads = 0) {
  return guided_filter(guide, p, g.radius, g.eps, g.gray, threads);
}

// The centring offsets: by default the mean of each used guide channel (gray: of the luma) and of p,
// float64 sums rounded to float. Any offsets give the same filter up to rounding; a GPU version picks its
// own (gpu/depth/guided_filter_gpu.hpp) and its comparison passes them here.
struct GuidedOffsets {
  std::array<float, 3> guide{0.f, 0.f, 0.f};
  float p = 0.f;
};
GuidedOffsets guided_offsets(const ImageF& guide_used, const ImageF& p, int threads = 0);
ImageF guided_filter(const ImageF& guide, const ImageF& p, const GuidedParams& g,
                     const GuidedOffsets& offsets, int threads = 0);

// Worst-case bound on |q_gpu - q_ref| for a version that follows the same algorithm with float SATs
// (each element within rel_sat of the SAT of |x|, see gpu/sat/sat_host.hpp kFloatSatRelBound) of the
// centred values and everything else in float64 (the per-pixel solve) except the final float output.
// Derivation in guided_filter.cpp. Meaningful (small) on small images; at 4K it is loose.
// `offsets`: those the compared version used (nullptr: guided_offsets).
double guided_filter_bound(const ImageF& guide, const ImageF& p, int radius, float eps, bool gray,
                           double rel_sat, int threads = 0, const GuidedOffsets* offsets = nullptr);

}  // namespace satlab
