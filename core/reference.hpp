// CPU reference algorithms: the fallback backend's building blocks and the gold results every GPU
// variant is compared with. Multi-threaded (threads <= 0: default_threads()).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/coc_pixel.hpp"
#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

// --- Reductions ------------------------------------------------------------------------------------
struct MinMax {
  float min = 0.f;
  float max = 0.f;
};
MinMax minmax_reduce(const float* data, size_t n, int threads = 0);  // n >= 1
int64_t sum_reduce(const int32_t* data, size_t n, int threads = 0);    // exact (64-bit accumulator)
double sum_reduce(const float* data, size_t n, int threads = 0);       // float64 accumulation

// --- Scans (inclusive unless named otherwise); uint32 wraps around like the GPU --------------------
void inclusive_scan(const uint32_t* in, uint32_t* out, size_t n);
void exclusive_scan(const uint32_t* in, uint32_t* out, size_t n);

// --- Stream compaction and radix sort (the GPU compact/ and sort/ families' references) ------------
// The elements x >= threshold of in[0, n), in input order, into out (room for n); returns their count.
size_t compact_at_least(const int32_t* in, size_t n, int32_t threshold, int32_t* out);
// LSD radix sort of (key, value) pairs by key, ascending: four stable counting-sort passes of 8 bits,
// so equal keys keep their input order. Outputs must not alias the inputs.
void sort_pairs(const uint32_t* keys, const uint32_t* values, size_t n, uint32_t* keys_out, uint32_t* values_out);

// --- Summed-area tables (inclusive: S(x,y) = sum of pixels with x' <= x and y' <= y) ---------------
// RGBA8 -> 4 x uint32 per pixel, interleaved, wrap-around arithmetic: any box sum recovered with
// box_sum() is exact whatever the image size, because every true box sum of 8-bit data over fewer than
// 2^24 pixels fits in 32 bits.
void sat_rgba8(const ImageRGBA8& image, std::vector<uint32_t>& sat, int threads = 0);
// One channel of 8-bit data (w*h bytes) -> uint32 SAT (w*h).
void sat_u8(const uint8_t* data, int width, int height, std::vector<uint32_t>& sat, int threads = 0);
// Float image (any channel count) -> float64 SAT, interleaved like the input.
void sat_float(const ImageF& image, std::vector<double>& sat, int threads = 0);
// 16-bit data with `channels` interleaved channels -> uint32 SAT (wrap-around, like sat_rgba8).
void sat_u16(const uint16_t* data, int width, int height, int channels, std::vector<uint32_t>& sat,
             int threads = 0);

// Sum of channel c over the box [x0,x1] x [y0,y1] (inclusive, clipped by the caller) from an
// interleaved inclusive SAT with `channels` channels: 4 taps, wrap-around subtraction.
uint32_t box_sum(const uint32_t* sat, int width, int channels, int c, int x0, int y0, int x1, int y1);

// --- Depth of field --------------------------------------------------------------------------------
// d = (raw - min) / (max - min) (all zeros when max == min), via minmax_reduce.
ImageF normalise_depth(const ImageF& raw, int threads = 0);
// One value of it: range = max - min; (raw - min) / range where range > 0, else 0 (NaN raw stays NaN
// there; a NaN or non-positive range gives 0 everywhere).
inline float normalised_depth(float raw, float min, float range) {
  return range > 0.f ? (raw - min) / range : 0.f;
}
// Signed circle of confusion in pixels from normalised depth (see Params), clamped to +-max_radius.
// Computed in float without fused multiply-add so that a GPU kernel can match it bit for bit.
float coc_from_depth(float d, const Params& p);
// The lens and focus band of `p` (core/coc_pixel.hpp), as both backends compute the CoC map from them.
dof::Lens lens_of(const Params& p);
dof::FocusBand focus_band_of(const Params& p);
ImageF coc_map(const ImageF& depth_normalised, const Params& p, int threads = 0);
// Into-variants of normalise_depth / coc_map (and of the blurs below) write into `out`, reusing its
// storage when the size matches: a caller running frame after frame avoids faulting in fresh pages.
void normalise_depth(const ImageF& raw, ImageF& out, int threads = 0);
// With the range given (the whole image's, for a tile of it: core/tiled.hpp) instead of raw's own.
void normalise_depth(const ImageF& raw, MinMax range, ImageF& out, int threads = 0);
void coc_map(const ImageF& depth_normalised, const Params& p, ImageF& out, int threads = 0);
// The integer blur radius of a CoC value: round(|c|) half away from zero.
int blur_radius(float coc);
// Fractional radius of a CoC value (Params::fractional_radius): |c| = r0 + t with r0 = floor(|c|),
// t = |c| - r0 in [0,1) (exact in float); NaN gives 0 and |c| >= kMaxBlurRadius gives kMaxBlurRadius, t = 0.
struct FractionalRadius {
  int r0 = 0;
  float t = 0.f;
};
FractionalRadius fractional_radius(float coc);

// --- Box blurs through the SAT (4 taps per pixel and channel) --------------------------------------
// Radii are clamped to kMaxBlurRadius: a box of at most 4095 x 4095 < 2^24 pixels keeps every true box
// sum of 8-bit data (and sum + area/2) inside 32 bits, so wrap-around SATs stay exact.
constexpr int kMaxBlurRadius = 2047;
// Each output channel is round(box_sum / area) (half up, integer arithmetic: (sum + area/2) / area)
// over the box of the pixel's radius clipped to the image, so edges are normalised by the clipped area.
ImageRGBA8 box_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, int radius, int threads = 0);
// That rounding, (s + d / 2) / d, for a divisor d <= (2 kMaxBlurRadius + 1)^2 < 2^24 that stays across a
// row (box_blur's interior, where the area is the row's) and a box mean s / d <= 255: a multiply by the
// inverse in double, nudged up by 1e-9, instead of a division. Exact: the product is within 256 * 2^-52 of
// the quotient (<= 255.5), so an integer quotient k lands in (k, k + 1e-9 + 1e-13), and k + f, f >= 1 / d >
// 5.9e-8, stays below k + 1 (tests/cpu/blur_test.cpp checks it at every quotient's edges).
struct RoundingDivider {
  uint32_t half;
  double inv;
  explicit RoundingDivider(uint32_t d) : half(d / 2), inv(1.0 / double(d)) {}
  uint8_t operator()(uint32_t s) const { return uint8_t(uint32_t(double(s + half) * inv + 1e-9)); }
};
ImageRGBA8 dof_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc,
                    int threads = 0);
void box_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, int radius, ImageRGBA8& out,
              int threads = 0);
void dof_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc, ImageRGBA8& out,
              int threads = 0);
// DoF blur with fractional radii: where t == 0 the box of radius r0 exactly as dof_blur; else per channel,
// in float with every operation rounded to nearest (no FMA; a CUDA kernel matches it bit for bit with the
// _rn intrinsics), the means of the boxes r0 and r0 + 1 (clipped) blended by t:
//   m_i = float(sum_i) * (1.0f / float(area_i));  v = m0 + t * (m1 - m0);  out = (uint8)(int)(v + 0.5f)
ImageRGBA8 dof_blur_fractional(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc,
                               int threads = 0);
void dof_blur_fractional(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc,
                         ImageRGBA8& out, int threads = 0);

}  // namespace satlab
