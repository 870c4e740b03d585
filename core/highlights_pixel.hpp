// The per-sprite and per-pixel arithmetic of bokeh highlights (core/highlights.hpp), shared by the CPU
// reference (core/highlights.cpp) and the GPU kernels (gpu/filter/highlights.cu): one source compiled for
// both, so the two agree bit for bit. Everything that decides a pixel is integer or IEEE double/float with
// no contractible multiply-add.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/dof_pixel.hpp"
#include "core/dof_spread_pixel.hpp"

namespace satlab::hl {

// A highlight needs a CoC radius of at least this (a radius-0 sprite is the pixel itself).
constexpr int kMinRadius = 1;
// Splat values are fixed point: kScale units per linear 1.0 (2^22). A pixel's splat wraps past 1024
// (linear), far above the clamp at 1.0 of the output; a sprite's rounding costs at most 0.5 unit per pixel
// of its clipped shape (energy error <= 0.5 area / kScale). "Linear 1.0" is 12-bit code 4095, the largest
// radiance the camera response decodes (core/dof.hpp), so these budgets do not depend on the response; a
// sprite's boost is at most the gain, 16 (before the response, 16 / 0.6).
constexpr double kScale = 4194304.0;
// Luminance weights (Rec. 709) in integers: Y * 10000 * 4095 from 12-bit linear channels (< 2^26).
SATLAB_HD uint32_t luminance(uint32_t r, uint32_t g, uint32_t b) {
  return 2126u * r + 7152u * g + 722u * b;
}
// The threshold in those units under the camera response `shoulder` (core/dof.hpp): a pixel passes when
// luminance() >= this. The threshold T is a display-linear (sRGB-decoded) luminance, as at s = 0: it is
// taken through the response's inverse, T / (1 - s T) of radiance, (1 - s) 4095 codes per unit, so a grey
// pixel passes at the same 8-bit value whatever s (a coloured one up to the shoulder's curvature).
inline uint32_t luminance_min(float threshold, float shoulder) {
  const double t = threshold, s = std::round(double(shoulder) * dof::kResponseSteps) / dof::kResponseSteps;
  return uint32_t(std::lround(t / (1.0 - s * t) * 10000.0 * (1.0 - s) * dof::kLinearOne));
}

// Sort key, ascending = back to front: the signed CoC (negative behind the focus plane, most negative
// farthest) as order-preserving bits. Keys below kNearKey are behind the focus plane.
constexpr uint32_t kNearKey = 0x80000000u;
constexpr uint32_t kPadKey = 0xffffffffu;  // unused sort slots (after every real key)
SATLAB_HD uint32_t depth_key(float coc) {
  uint32_t u;
  memcpy(&u, &coc, 4);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// The pixel count of the aperture's rectangles around (x, y), clipped to the image.
SATLAB_HD uint32_t clipped_area(const dof::Rect* rects, int n, int x, int y, int w, int h, bool turn = false) {
  uint32_t area = 0;
  for (int i = 0; i < n; ++i) {
    const dof::Rect r = turn ? dof::flipped(rects[i]) : rects[i];
    const int x0 = x + r.x0 > 0 ? x + r.x0 : 0, x1 = x + r.x1 < w - 1 ? x + r.x1 : w - 1;
    const int y0 = y + r.y0 > 0 ? y + r.y0 : 0, y1 = y + r.y1 < h - 1 ? y + r.y1 : h - 1;
    if (x1 >= x0 && y1 >= y0) area += uint32_t(x1 - x0 + 1) * uint32_t(y1 - y0 + 1);
  }
  return area;
}

// A profiled sprite (Params::bokeh_profile or catadioptric in a mode with DofMode::profile): the spread's
// apertures (core/dof_spread.hpp), each component's rectangles adding mult times the pixel weight. Its
// weighted clipped area, sum over components of mult times its rectangles' clipped pixels, at least 1.
SATLAB_HD uint32_t profiled_area(const dof::Rect* rects, const dof::SpreadInfo& in, int x, int y, int w, int h,
                                 bool turn) {
  long long a = 0;
  for (int c = 0, q0 = 0; c < in.comps; q0 = in.end[c], ++c)
    a += (long long)in.mult[c] * (long long)clipped_area(rects + q0, in.end[c] - q0, x, y, w, h, turn);
  return a > 0 ? uint32_t(a) : 1u;
}
// A flat sprite's aperture (aperture_table's count rectangles) as one component of mult 1: its
// profiled_area is its clipped_area, its values the pixel weight.
SATLAB_HD dof::SpreadInfo flat_info(int count, bool flip) {
  dof::SpreadInfo in{};
  in.count = uint8_t(count), in.comps = 1, in.end[0] = uint8_t(count), in.mult[0] = 1, in.flip = flip ? 1 : 0;
  return in;
}
// The component of rectangle q.
SATLAB_HD int component_of(const dof::SpreadInfo& in, int q) {
  int c = 0;
  while (c + 1 < in.comps && q >= in.end[c]) ++c;
  return c;
}

// One channel's splat value per pixel of a sprite: its linear energy (12-bit value times boost) spread
// evenly over the clipped shape, in kScale units, rounded.
SATLAB_HD uint32_t weight(uint32_t lin12, double boost, uint32_t area) {
  const double e = double(lin12) * boost * kScale;
  const double q = e / (double(dof::kLinearOne) * double(area));
  return uint32_t(floor(q + 0.5));
}

// One output channel: the gathered sRGB value plus the splat (kScale units), in linear light. Without a
// splat the gathered value stays as it is: under a camera response the 12-bit decode is not one to one in
// the darkest values (core/dof.hpp), so a round trip could move them, and the GPU leaves untouched rows alone.
SATLAB_HD uint8_t composite(uint8_t gathered, uint32_t splat, const uint16_t* srgb_to_lin,
                            const uint8_t* lin_to_srgb) {
  if (splat == 0u) return gathered;
  const float v = float(srgb_to_lin[gathered]) / float(dof::kLinearOne) + float(splat) / float(kScale);
  return dof::encode(v, true, lin_to_srgb);
}

}  // namespace satlab::hl
