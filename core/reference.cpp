// CPU reference algorithms (see reference.hpp). Multi-threaded with parallel_for; written for clarity
// first, but cache-friendly enough to serve as the fallback backend.
#include "core/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/coc_pixel.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace satlab {

// --- Reductions ------------------------------------------------------------------------------------

MinMax minmax_reduce(const float* data, size_t n, int threads) {
  // NaNs (no depth) are skipped wherever they are, so the result does not depend on how the array is split
  // among threads; all NaN gives NaN.
  if (n == 0) throw Error("minmax_reduce of an empty array");
  int t = threads <= 0 ? default_threads() : threads;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<MinMax> part(size_t(t), MinMax{inf, -inf});
  long chunk = long((n + size_t(t) - 1) / size_t(t));
  parallel_for(
      0, t,
      [&](long b, long e) {
        for (long i = b; i < e; ++i) {
          size_t lo = size_t(i) * size_t(chunk), hi = std::min(n, lo + size_t(chunk));
          MinMax m{inf, -inf};
          for (size_t k = lo; k < hi; ++k)
            if (data[k] == data[k]) {
              m.min = std::min(m.min, data[k]);
              m.max = std::max(m.max, data[k]);
            }
          part[size_t(i)] = m;
        }
      },
      t);
  MinMax r{inf, -inf};
  for (const auto& m : part) {
    r.min = std::min(r.min, m.min);
    r.max = std::max(r.max, m.max);
  }
  if (r.min > r.max) r.min = r.max = std::numeric_limits<float>::quiet_NaN();
  return r;
}

template <typename Acc, typename T>
static Acc sum_parallel(const T* data, size_t n, int threads) {
  int t = threads <= 0 ? default_threads() : threads;
  std::vector<Acc> part(size_t(t), Acc(0));
  long chunk = long((n + size_t(t) - 1) / size_t(t));
  parallel_for(
      0, t,
      [&](long b, long e) {
        for (long i = b; i < e; ++i) {
          size_t lo = std::min(n, size_t(i) * size_t(chunk)), hi = std::min(n, lo + size_t(chunk));
          Acc s = 0;
          for (size_t k = lo; k < hi; ++k) s += Acc(data[k]);
          part[size_t(i)] = s;
        }
      },
      t);
  Acc s = 0;
  for (Acc p : part) s += p;
  return s;
}

int64_t sum_reduce(const int32_t* data, size_t n, int threads) {
  return sum_parallel<int64_t>(data, n, threads);
}
double sum_reduce(const float* data, size_t n, int threads) {
  return sum_parallel<double>(data, n, threads);
}

// --- Scans -----------------------------------------------------------------------------------------

void inclusive_scan(const uint32_t* in, uint32_t* out, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i < n; ++i) out[i] = s += in[i];
}

void exclusive_scan(const uint32_t* in, uint32_t* out, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = in[i];
    out[i] = s;
    s += v;
  }
}

// --- Stream compaction and radix sort --------------------------------------------------------------

size_t compact_at_least(const int32_t* in, size_t n, int32_t threshold, int32_t* out) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i)
    if (in[i] >= threshold) out[k++] = in[i];
  return k;
}

void sort_pairs(const uint32_t* keys, const uint32_t* values, size_t n, uint32_t* keys_out,
                uint32_t* values_out) {
  std::vector<uint32_t> k[2] = {std::vector<uint32_t>(keys, keys + n), std::vector<uint32_t>(n)};
  std::vector<uint32_t> v[2] = {std::vector<uint32_t>(values, values + n), std::vector<uint32_t>(n)};
  for (int pass = 0; pass < 4; ++pass) {
    const int shift = 8 * pass, src = pass & 1, dst = src ^ 1;
    size_t start[257] = {};
    for (size_t i = 0; i < n; ++i) ++start[((k[src][i] >> shift) & 255) + 1];
    for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
    for (size_t i = 0; i < n; ++i) {  // in input order: stable
      const size_t at = start[(k[src][i] >> shift) & 255]++;
      k[dst][at] = k[src][i];
      v[dst][at] = v[src][i];
    }
  }
  std::copy(k[0].begin(), k[0].end(), keys_out);  // four passes end where they began
  std::copy(v[0].begin(), v[0].end(), values_out);
}

// Summed-area tables: core/sat.cpp.

// --- Depth of field --------------------------------------------------------------------------------

// Normalisation, CoC and blur radius are written as the exact float operation sequence a CUDA kernel
// reproduces bit for bit with the round-to-nearest intrinsics (no FMA here: -ffp-contract=off, and
// x86-64 evaluates float in float, FLT_EVAL_METHOD == 0):
//   normalise:  range = __fsub_rn(max, min);  d = range > 0 ? __fdiv_rn(__fsub_rn(raw, min), range) : 0
//   depth:      z = __fadd_rn(near, __fmul_rn(d, __fsub_rn(far, near)));  inv = __fdiv_rn(1.0f, z)
//   disparity:  a = __fdiv_rn(1.0f, far);  b = __fdiv_rn(1.0f, near);  inv = __fadd_rn(a, __fmul_rn(d,
//   __fsub_rn(b, a))) coc:        c = __fmul_rn(aperture, __fsub_rn(inv(d), inv(focus)));  c = fminf(fmaxf(c,
//   -max_r), max_r) radius:     r = (int)roundf(fabsf(c))   (half away from zero), clamped to kMaxBlurRadius
// inv(focus) may be computed once per frame: it is the same operation sequence on the same inputs.

// Reuses out's pixels when its size and channel count already match.
static void fit(ImageF& out, int w, int h) {
  if (out.width != w || out.height != h || out.channels != 1 || out.data.size() != size_t(w) * size_t(h))
    out = ImageF(w, h, 1);
}

static void check_depth(const ImageF& raw) {
  if (raw.empty()) throw Error("normalise_depth: empty depth map");
  if (raw.channels != 1) throw Error("normalise_depth: depth map must have 1 channel");
}

void normalise_depth(const ImageF& raw, MinMax mm, ImageF& d, int threads) {
  check_depth(raw);
  fit(d, raw.width, raw.height);
  const float lo = mm.min, range = mm.max - mm.min;
  parallel_for(
      0, long(raw.data.size()),
      [&](long b, long e) {
        for (long i = b; i < e; ++i) d.data[size_t(i)] = normalised_depth(raw.data[size_t(i)], lo, range);
      },
      threads);
}

void normalise_depth(const ImageF& raw, ImageF& d, int threads) {
  check_depth(raw);
  normalise_depth(raw, minmax_reduce(raw.data.data(), raw.data.size(), threads), d, threads);
}

ImageF normalise_depth(const ImageF& raw, int threads) {
  ImageF d;
  normalise_depth(raw, d, threads);
  return d;
}

dof::Lens lens_of(const Params& p) {
  return dof::Lens{p.aperture, p.max_radius, p.near_depth, p.far_depth, p.disparity, p.coc_offset};
}

dof::FocusBand focus_band_of(const Params& p) {
  return dof::focus_band(p.focus, p.focus_range, p.focus_range_far, p.focus_ramp_near, p.focus_ramp_far,
                         lens_of(p));
}

float coc_from_depth(float d, const Params& p) {
  return dof::coc_of(d, lens_of(p), focus_band_of(p));
}

void coc_map(const ImageF& depth_normalised, const Params& p, ImageF& c, int threads) {
  fit(c, depth_normalised.width, depth_normalised.height);
  const dof::Lens lens = lens_of(p);
  const dof::FocusBand band = focus_band_of(p);
  parallel_for(
      0, long(c.data.size()),
      [&](long b, long e) {
        for (long i = b; i < e; ++i)
          c.data[size_t(i)] = dof::coc_of(depth_normalised.data[size_t(i)], lens, band);
      },
      threads);
}

ImageF coc_map(const ImageF& depth_normalised, const Params& p, int threads) {
  ImageF c;
  coc_map(depth_normalised, p, c, threads);
  return c;
}

int blur_radius(float coc) {
  const float a = std::fabs(coc);
  if (!(a < float(kMaxBlurRadius))) return std::isnan(a) ? 0 : kMaxBlurRadius;
  return int(std::round(a));
}

FractionalRadius fractional_radius(float coc) {
  const float a = std::fabs(coc);
  if (!(a < float(kMaxBlurRadius))) return {std::isnan(a) ? 0 : kMaxBlurRadius, 0.f};
  const float f = std::floor(a);
  return {int(f), a - f};
}

// Sums of the four channels over the box of radius r around (x, y) clipped to the image (4 taps of 16
// contiguous bytes, wrap-around subtraction); returns the clipped area.
static inline uint32_t box_sums(const uint32_t* sat, int w, int h, int x, int y, int r, uint32_t (&s)[4]) {
  const int x0 = std::max(x - r, 0) - 1, x1 = std::min(x + r, w - 1);
  const int y0 = std::max(y - r, 0) - 1, y1 = std::min(y + r, h - 1);
  const uint32_t* a = sat + (size_t(y1) * size_t(w) + size_t(x1)) * 4;
  for (int ch = 0; ch < 4; ++ch) {
    s[ch] = a[ch];
    if (x0 >= 0) s[ch] -= sat[(size_t(y1) * size_t(w) + size_t(x0)) * 4 + ch];
    if (y0 >= 0) s[ch] -= sat[(size_t(y0) * size_t(w) + size_t(x1)) * 4 + ch];
    if (x0 >= 0 && y0 >= 0) s[ch] += sat[(size_t(y0) * size_t(w) + size_t(x0)) * 4 + ch];
  }
  return uint32_t(x1 - x0) * uint32_t(y1 - y0);
}

// One output pixel: the box of radius r around (x, y) clipped to the image, each channel rounded
// half up in integers. With r <= kMaxBlurRadius the true box sum (and sum + area/2) fits in 32 bits.
static inline void blur_pixel(const uint32_t* sat, int w, int h, int x, int y, int r, uint8_t* out) {
  uint32_t s[4];
  const uint32_t area = box_sums(sat, w, h, x, y, r, s);
  for (int ch = 0; ch < 4; ++ch) out[ch] = uint8_t((s[ch] + area / 2) / area);
}

// One output pixel of the fractional blur (see dof_blur_fractional in reference.hpp for the arithmetic).
static inline void blur_pixel_fractional(const uint32_t* sat, int w, int h, int x, int y, FractionalRadius fr,
                                         uint8_t* out) {
  if (fr.t == 0.f) return blur_pixel(sat, w, h, x, y, fr.r0, out);
  uint32_t s0[4], s1[4];
  const float inv0 = 1.0f / float(box_sums(sat, w, h, x, y, fr.r0, s0));
  const float inv1 = 1.0f / float(box_sums(sat, w, h, x, y, fr.r0 + 1, s1));
  for (int ch = 0; ch < 4; ++ch) {
    const float m0 = float(s0[ch]) * inv0, m1 = float(s1[ch]) * inv1;
    const float v = m0 + fr.t * (m1 - m0);
    out[ch] = uint8_t(int(v + 0.5f));
  }
}

static void check_sat(const ImageRGBA8& image, const std::vector<uint32_t>& sat, ImageRGBA8& out) {
  if (sat.size() != image.pixels() * 4) throw Error("blur: SAT size does not match the image");
  if (out.width != image.width || out.height != image.height || out.data.size() != image.pixels() * 4)
    out = ImageRGBA8(image.width, image.height);
}

#if defined(__SSE2__)
namespace {
// One interior pixel's box mean, its four channels at once (the SAT's 4 x uint32 of a pixel is one SSE2
// register): the four taps, then RoundingDivider's arithmetic in two double pairs, so that the result is
// bit for bit the scalar one's ((s + half) * inv + 1e-9, truncated; every box sum below 2^31, as an int32).
// hi_r/hi_l null: the box starts at row 0.
struct BoxMean4 {
  __m128i half;
  __m128d inv, eps;
  explicit BoxMean4(const RoundingDivider& d)
      : half(_mm_set1_epi32(int(d.half))), inv(_mm_set1_pd(d.inv)), eps(_mm_set1_pd(1e-9)) {}
  void operator()(const uint32_t* lo_r, const uint32_t* lo_l, const uint32_t* hi_r, const uint32_t* hi_l,
                  uint8_t* o) const {
    const auto load = [](const uint32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
    __m128i s = _mm_sub_epi32(load(lo_r), load(lo_l));
    if (hi_r) s = _mm_add_epi32(_mm_sub_epi32(s, load(hi_r)), load(hi_l));
    s = _mm_add_epi32(s, half);
    const __m128d a = _mm_add_pd(_mm_mul_pd(_mm_cvtepi32_pd(s), inv), eps);
    const __m128d b = _mm_add_pd(_mm_mul_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(s, 0xEE)), inv), eps);
    __m128i q = _mm_unpacklo_epi64(_mm_cvttpd_epi32(a), _mm_cvttpd_epi32(b));
    q = _mm_packus_epi16(_mm_packs_epi32(q, q), q);
    const int v = _mm_cvtsi128_si32(q);
    std::memcpy(o, &v, 4);
  }
};
}  // namespace
#endif

void box_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, int radius, ImageRGBA8& out,
              int threads) {
  check_sat(image, sat, out);
  const int r = std::min(std::max(radius, 0), kMaxBlurRadius);
  const int w = image.width, h = image.height;
  // The columns whose box lies within the image across: x - r - 1 >= 0 and x + r <= w - 1. There the
  // four taps are fixed offsets from the pixel and the area is the row's; the other columns clip.
  const int xa = std::min(r + 1, w), xb = std::max(w - r, xa);
  parallel_for(
      0, h,
      [&](long b, long e) {
        for (long yl = b; yl < e; ++yl) {
          const int y = int(yl);
          for (int x = 0; x < xa; ++x) blur_pixel(sat.data(), w, h, x, y, r, out.px(x, y));
          for (int x = xb; x < w; ++x) blur_pixel(sat.data(), w, h, x, y, r, out.px(x, y));
          if (xb == xa) continue;
          const int y0 = std::max(y - r, 0) - 1, y1 = std::min(y + r, h - 1);
          const RoundingDivider div(uint32_t(2 * r + 1) * uint32_t(y1 - y0));
          const uint32_t* lo = sat.data() + size_t(y1) * size_t(w) * 4;  // the box's last row
          const uint32_t* hi = y0 >= 0 ? sat.data() + size_t(y0) * size_t(w) * 4 : nullptr;  // above it
          const size_t right = size_t(r) * 4, left = size_t(r + 1) * 4;
          uint8_t* o = out.px(0, y);
#if defined(__SSE2__)
          const BoxMean4 mean(div);
          for (int x = xa; x < xb; ++x) {
            const size_t i = size_t(x) * 4;
            // The box's last row, 128 pixels ahead: without it the loads of that row (the one stream from
            // memory; the row above was read 2r + 1 rows ago and is in L2) stalled the loop (`bench cpu`
            // 4096^2 on 2 cores: 63 -> 19.7 ms; 64 or 256 pixels ahead 22-26 ms).
            if ((x & 3) == 0 && x + 128 < xb)
              _mm_prefetch(reinterpret_cast<const char*>(lo + i + right + 512), _MM_HINT_T0);
            mean(lo + i + right, lo + i - left, hi ? hi + i + right : nullptr, hi ? hi + i - left : nullptr,
                 o + i);
          }
          continue;
#endif
          if (hi) {
            for (int x = xa; x < xb; ++x) {
              const size_t i = size_t(x) * 4;
              for (int c = 0; c < 4; ++c)
                o[i + size_t(c)] = div(lo[i + right + size_t(c)] - lo[i - left + size_t(c)] -
                                       hi[i + right + size_t(c)] + hi[i - left + size_t(c)]);
            }
          } else {
            for (int x = xa; x < xb; ++x) {
              const size_t i = size_t(x) * 4;
              for (int c = 0; c < 4; ++c)
                o[i + size_t(c)] = div(lo[i + right + size_t(c)] - lo[i - left + size_t(c)]);
            }
          }
        }
      },
      threads);
}

// A DoF blur: after the size checks, pixel(x, y, coc, out) for every pixel, rows in parallel.
template <typename Pixel>
static void dof_blur_each(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc,
                          ImageRGBA8& out, int threads, Pixel pixel) {
  if (coc.width != image.width || coc.height != image.height || coc.channels != 1)
    throw Error("dof_blur: CoC map size does not match the image");
  check_sat(image, sat, out);
  parallel_for(
      0, image.height,
      [&](long b, long e) {
        for (long y = b; y < e; ++y)
          for (int x = 0; x < image.width; ++x) pixel(x, int(y), coc.at(x, int(y)), out.px(x, int(y)));
      },
      threads);
}

void dof_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc, ImageRGBA8& out,
              int threads) {
  dof_blur_each(image, sat, coc, out, threads, [&](int x, int y, float c, uint8_t* o) {
    blur_pixel(sat.data(), image.width, image.height, x, y, blur_radius(c), o);
  });
}

void dof_blur_fractional(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc,
                         ImageRGBA8& out, int threads) {
  dof_blur_each(image, sat, coc, out, threads, [&](int x, int y, float c, uint8_t* o) {
    blur_pixel_fractional(sat.data(), image.width, image.height, x, y, fractional_radius(c), o);
  });
}

ImageRGBA8 dof_blur_fractional(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc,
                               int threads) {
  ImageRGBA8 out;
  dof_blur_fractional(image, sat, coc, out, threads);
  return out;
}

ImageRGBA8 box_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, int radius, int threads) {
  ImageRGBA8 out;
  box_blur(image, sat, radius, out, threads);
  return out;
}

ImageRGBA8 dof_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc,
                    int threads) {
  ImageRGBA8 out;
  dof_blur(image, sat, coc, out, threads);
  return out;
}

}  // namespace satlab
