// The per-pixel arithmetic of the shaped, linear-light and layered depth-of-field modes, shared by the CPU
// reference (core/dof.cpp) and the GPU kernels (gpu/filter/dof_modes.cu): one source compiled for both,
// without FMA contraction on either side, so the two agree bit for bit.
//
// Every mode reads integer summed-area tables of 4 channels (uint32, wrap-around): colour (8-bit sRGB, or
// linear light in 12-bit integers) and a count channel (1 per pixel). A box sum of such data is exact while
// its true value fits in 32 bits: 12-bit values over boxes of side <= 1023 (1023^2 * 4095 < 2^32), hence
// kMaxShapedRadius. Only the final blend is float.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace satlab::dof {

constexpr int kMaxRects = 8;         // rectangles per aperture shape (bands of rows)
constexpr int kMaxLayers = 8;        // depth layers of the layered mode
constexpr int kLinearOne = 4095;     // linear light 1.0 in the 12-bit integer tables
constexpr int kMaxShapedRadius = 511;
constexpr int kResponseSteps = 1000;  // the camera response's shoulder is used to 1 / this (core/dof.hpp)

// The reach of the fills behind the nearest layer (layered_pixel) and the front surface (spread_pixel):
// the radius of the largest square box they grow to, for a frame whose largest radius is max_r:
// kFillReachScale max_r, at least kFillReachMin, at most kMaxShapedRadius. What a fill looks for (what lies
// behind a near object's blurred rim) lies within about max_r of the pixel, and the tiled executor's halo
// (DofMode::halo) follows the reach. Measured on the ground truth (docs/quality.md, "The fill's reach"):
// 4 max_r gains 0.00-0.11 dB on average over every depth source against kMaxShapedRadius whatever
// max_r, and no case loses 0.01 dB; 2 max_r gains a little more on average but loses up to 0.06 dB in
// the rim band; 8 max_r scores as kMaxShapedRadius.
constexpr int kFillReachScale = 4, kFillReachMin = 16;
SATLAB_HD int fill_reach(int max_r) {
  const int r = kFillReachScale * max_r < kFillReachMin ? kFillReachMin : kFillReachScale * max_r;
  return r < kMaxShapedRadius ? r : kMaxShapedRadius;
}

// One rectangle of an aperture, as offsets from the pixel (inclusive).
struct Rect {
  int16_t x0, x1, y0, y1;
};
// A rectangle turned by 180 degrees about the pixel (an asymmetric aperture in front of the focus plane).
SATLAB_HD Rect flipped(Rect r) {
  return Rect{int16_t(-r.x1), int16_t(-r.x0), int16_t(-r.y1), int16_t(-r.y0)};
}

// Four channel sums (r, g, b, count).
struct Sum4 {
  uint32_t c[4];
};

// A layer's setup: `layers` slices of the signed CoC between edge[0] = -M and edge[layers] = M, ordered far
// (most negative CoC) to near, and each layer's mean CoC over the frame (used as the radius at which a
// layer is gathered at pixels of other layers).
struct Layers {
  int count = 1;
  float edge[kMaxLayers + 1] = {};
  float mean_coc[kMaxLayers] = {};
};

// The first j with coc < edge[j + 1] (the last layer if none). Unrolled over kMaxLayers so that the GPU
// reads the edges from registers or kernel parameters (a data-dependent loop made the compiler keep a
// local copy of Layers per thread: the slice's 72-byte stack).
SATLAB_HD int layer_of(float coc, const Layers& l) {
  int j = 0;
  bool more = true;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int k = 1; k < kMaxLayers; ++k) {
    more = more && k < l.count && !(coc < l.edge[k]);
    j += more ? 1 : 0;
  }
  return j;
}

// Each layer's mean CoC from integer sums of round(c * 256) over its pixels (exact and order-free: the
// GPU's atomic sums give the same means); an empty layer keeps its value.
SATLAB_HD void layer_means(const long long* sum256, const unsigned* count, Layers& l) {
  for (int j = 0; j < l.count; ++j)
    if (count[j]) l.mean_coc[j] = float(double(sum256[j]) / (256.0 * double(count[j])));
}

// round(|c|), clamped to [0, max_r]; NaN -> 0.
SATLAB_HD int shaped_radius(float c, int max_r) {
  const float a = c < 0.f ? -c : c;
  if (!(a < float(max_r))) return a == a ? max_r : 0;
  return int(a + 0.5f);
}

// Adds table `t` over rectangle r around (x, y), clipped to the image, to s, and its pixel count to area.
template <class Tap>
SATLAB_HD void add_rect(const Tap& tap, int t, const Rect r, int x, int y, int w, int h, Sum4& s, uint32_t& area) {
  const int x0 = (x + r.x0 > 0 ? x + r.x0 : 0) - 1, x1 = x + r.x1 < w - 1 ? x + r.x1 : w - 1;
  const int y0 = (y + r.y0 > 0 ? y + r.y0 : 0) - 1, y1 = y + r.y1 < h - 1 ? y + r.y1 : h - 1;
  if (x1 <= x0 || y1 <= y0) return;
  const Sum4 a = tap(t, x1, y1), b = tap(t, x0, y1), c = tap(t, x1, y0), d = tap(t, x0, y0);
  for (int k = 0; k < 4; ++k) s.c[k] += a.c[k] - b.c[k] - c.c[k] + d.c[k];
  area += uint32_t(x1 - x0) * uint32_t(y1 - y0);
}

// Sum of table `t` over the aperture's rectangles around (x, y), each clipped to the image; returns the
// pixel count of the clipped shape. tap(t, x, y) returns the inclusive SAT at (x, y), zeros for x or y < 0;
// tap.count(t, x, y) its count channel alone.
template <class Tap>
SATLAB_HD uint32_t shape_sum(const Tap& tap, int t, const Rect* rects, int n, int x, int y, int w, int h,
                             Sum4& s) {
  uint32_t area = 0;
  for (int k = 0; k < 4; ++k) s.c[k] = 0;
  // Not unrolled on the GPU: unrolled by 2 (alone or with shape_sum's two radii in one loop, all the same
  // sums) the composite took 1.83-1.90 ms instead of 1.59 (more registers, fewer warps).
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
  for (int i = 0; i < n; ++i) add_rect(tap, t, rects[i], x, y, w, h, s, area);
  return area;
}

// The count channel of table `t` over the square of radius R around (x, y), clipped to the image: 4 taps of
// one channel (tap.count), a quarter of the bytes of shape_sum's.
template <class Tap>
SATLAB_HD uint32_t box_count(const Tap& tap, int t, int R, int x, int y, int w, int h) {
  const int x0 = (x - R > 0 ? x - R : 0) - 1, x1 = x + R < w - 1 ? x + R : w - 1;
  const int y0 = (y - R > 0 ? y - R : 0) - 1, y1 = y + R < h - 1 ? y + R : h - 1;
  if (x1 <= x0 || y1 <= y0) return 0u;
  return tap.count(t, x1, y1) - tap.count(t, x0, y1) - tap.count(t, x1, y0) + tap.count(t, x0, y0);
}

// The count channel of table `t` over the square of radius R around (x, y), clipped to the image, and the
// clipped square's pixel count in `area`. tap.may_hold(t, x0, y0, x1, y1) says whether table t can have a
// pixel in that rectangle (inclusive; false: the taps are skipped, exact as the count is then 0).
template <class Tap>
SATLAB_HD uint32_t square_count(const Tap& tap, int t, int R, int x, int y, int w, int h, uint32_t& area) {
  const int x0 = (x - R > 0 ? x - R : 0) - 1, x1 = x + R < w - 1 ? x + R : w - 1;
  const int y0 = (y - R > 0 ? y - R : 0) - 1, y1 = y + R < h - 1 ? y + R : h - 1;
  area = x1 > x0 && y1 > y0 ? uint32_t(x1 - x0) * uint32_t(y1 - y0) : 0u;
  if (area == 0u || !tap.may_hold(t, x0 + 1, y0 + 1, x1, y1)) return 0u;
  return tap.count(t, x1, y1) - tap.count(t, x0, y1) - tap.count(t, x1, y0) + tap.count(t, x0, y0);
}

// Layer j's premultiplied mean colour b and coverage a over an aperture (table j), and the table's sums q.
template <class Tap>
SATLAB_HD void layer_mean(const Tap& tap, int j, const Rect* rects, int n, float one, int x, int y, int w, int h,
                          Sum4& q, float b[3], float& a) {
  const uint32_t area = shape_sum(tap, j, rects, n, x, y, w, h, q);
  const float fa = float(area);
  a = float(q.c[3]) / fa;
  for (int k = 0; k < 3; ++k) b[k] = float(q.c[k]) / (fa * one);
}

// The sums of tables 0..top-1 (everything behind layer top) over an aperture whose rectangles lie within the
// square of radius R: a table with no pixel in that square adds nothing and is skipped (exact).
template <class Tap>
SATLAB_HD void sum_behind(const Tap& tap, int top, const Rect* rects, int n, int R, int x, int y, int w, int h,
                          Sum4& s) {
  for (int k = 0; k < 4; ++k) s.c[k] = 0u;
  for (int i = 0; i < top; ++i) {
    uint32_t area;
    if (square_count(tap, i, R, x, y, w, h, area) == 0u) continue;
    Sum4 t;
    shape_sum(tap, i, rects, n, x, y, w, h, t);
    for (int k = 0; k < 4; ++k) s.c[k] += t.c[k];
  }
}

// One output pixel (colour in [0,1] in the tables' space: linear or sRGB) of the layered composite; with
// one layer it is the shaped gather of the pixel's own radius.
//   Table j holds the pixels of layer j alone. Back to front, each layer's premultiplied mean over the
//   aperture goes over what lies behind it:
//     acc = b_j + (1 - a_j) acc,   cov = a_j + (1 - a_j) cov.
//   Where the result is not opaque at the end, the nearest layer present in the aperture (top) hides what
//   a lens sees behind it: the rest is filled with the mean colour of everything behind that layer around
//   the pixel (normalised convolution: the colour sum of tables 0..top-1 over their count sum), at top's
//   aperture, else at square boxes growing by 2, 4, 8, ... px up to radius `reach` (fill_reach; exact
//   sums); with nothing behind within reach, acc / cov.
// All sums are exact integers, so per-layer tables give the same bits as cumulative ones (table j the
// pixels of layers 0..j, layer j their difference: the previous scheme, at twice the taps per layer).
// Layers behind the nearest one whose square (around both its apertures) holds its pixels alone are
// skipped: that layer's coverage is exactly 1 at both radii, so acc = b + 0 * acc and cov = 1 + 0 * cov
// drop whatever lay behind (finite, non-negative), and it is the nearest layer present so far (top): the
// same bits as compositing them. The presence tests run nearest first and stop at that layer.
// `rect_table` holds kMaxRects rectangles per radius 0..max_r and `rect_count` their number; every
// radius-r shape lies within the square of radius r.
template <class Tap, bool SKIP_BEHIND = true>
SATLAB_HD void layered_pixel(const Tap& tap, const Layers& layers, const Rect* rect_table,
                             const uint8_t* rect_count, int max_r, int reach, float one, int x, int y, int w,
                             int h, float coc, float out[3]) {
  if (!(coc == coc)) coc = 0.f;
  const int own = layer_of(coc, layers);
  float acc[3] = {0.f, 0.f, 0.f}, cov = 0.f;
  int top = 0, top_r = 0;
  // Layer j's radius: the pixel's CoC in its own layer, clamped to the layer's range in the neighbouring
  // layers, the layer's mean elsewhere; as an integer r and a fraction f (the layer's means over the
  // apertures of radius r and r + 1 are blended by f).
  const auto radius = [&](int j, int& r, float& f) {
    const float lo = layers.edge[j], hi = layers.edge[j + 1];
    float cj = j == own ? coc : (j == own - 1 || j == own + 1) ? (coc < lo ? lo : coc > hi ? hi : coc) : layers.mean_coc[j];
    cj = cj < 0.f ? -cj : cj;
    r = cj < float(max_r) ? int(cj) : max_r;
    f = r < max_r ? cj - float(r) : 0.f;
  };
  // A layer with no pixel in the square around both apertures adds nothing: skip its taps (exact). The
  // pixel's own layer always holds the pixel itself. Nearest first, down to the first full layer (layer 0
  // needs no fullness test: nothing lies behind it).
  unsigned present = 0u;
  int first = 0;
  for (int j = layers.count - 1; j >= 0; --j) {
    if (j == 0 && own == 0) {
      present |= 1u;
      break;
    }
    int r;
    float f;
    radius(j, r, f);
    uint32_t area;
    const uint32_t n = square_count(tap, j, r < max_r ? r + 1 : r, x, y, w, h, area);
    if (n != 0u || j == own) present |= 1u << j;
    if (SKIP_BEHIND && n == area && j > 0) {
      first = j;
      break;
    }
  }
  for (int j = first; j < layers.count; ++j) {
    if (!(present >> j & 1u)) continue;
    int r;
    float f;
    radius(j, r, f);
    Sum4 q;
    float b[3], a;
    const Rect* rr = rect_table + r * kMaxRects;
    layer_mean(tap, j, rr, rect_count[r], one, x, y, w, h, q, b, a);
    if (f > 0.f) {
      Sum4 q1;
      float b1[3], a1;
      layer_mean(tap, j, rr + kMaxRects, rect_count[r + 1], one, x, y, w, h, q1, b1, a1);
      for (int k = 0; k < 3; ++k) b[k] = b[k] + f * (b1[k] - b[k]);
      a = a + f * (a1 - a);
    }
    if (q.c[3] != 0u) top = j, top_r = r;  // the nearest layer present so far
    const float t = 1.f - a;
    for (int k = 0; k < 3; ++k) acc[k] = b[k] + t * acc[k];
    cov = a + t * cov;
  }
  if (cov < 1.f && top > 0) {
    Sum4 behind;
    sum_behind(tap, top, rect_table + top_r * kMaxRects, rect_count[top_r], top_r, x, y, w, h, behind);
    for (int step = 0, R = 0; behind.c[3] == 0u && R < reach; ++step) {
      R = top_r + (2 << step) < reach ? top_r + (2 << step) : reach;
      const Rect box = {int16_t(-R), int16_t(R), int16_t(-R), int16_t(R)};
      sum_behind(tap, top, &box, 1, R, x, y, w, h, behind);
    }
    if (behind.c[3] != 0u) {
      const float rest = 1.f - cov, norm = float(behind.c[3]) * one;
      for (int k = 0; k < 3; ++k) acc[k] = acc[k] + rest * (float(behind.c[k]) / norm);
      cov = 1.f;
    }
  }
  for (int k = 0; k < 3; ++k) out[k] = acc[k] / cov;
}

// A [0,1] colour channel to 8 bits: linear light through the 4096-entry table, sRGB values by rounding.
SATLAB_HD uint8_t encode(float v, bool linear, const uint8_t* linear_to_srgb) {
  const float scale = linear ? float(kLinearOne) : 255.f;
  int i = int(v * scale + 0.5f);
  i = i < 0 ? 0 : i > int(scale) ? int(scale) : i;
  return linear ? linear_to_srgb[i] : uint8_t(i);
}

}  // namespace satlab::dof
