// CPU reference algorithms (see reference.hpp). Multi-threaded with parallel_for; written for clarity
// first, but cache-friendly enough to serve as the fallback backend.
#include "core/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace satlab {

// --- Reductions ------------------------------------------------------------------------------------

MinMax minmax_reduce(const float* data, size_t n, int threads) {
  if (n == 0) throw Error("minmax_reduce of an empty array");
  int t = threads <= 0 ? default_threads() : threads;
  std::vector<MinMax> part(size_t(t), MinMax{data[0], data[0]});
  long chunk = long((n + size_t(t) - 1) / size_t(t));
  parallel_for(0, t, [&](long b, long e) {
    for (long i = b; i < e; ++i) {
      size_t lo = size_t(i) * size_t(chunk), hi = std::min(n, lo + size_t(chunk));
      MinMax m{data[std::min(lo, n - 1)], data[std::min(lo, n - 1)]};
      for (size_t k = lo; k < hi; ++k) {
        m.min = std::min(m.min, data[k]);
        m.max = std::max(m.max, data[k]);
      }
      part[size_t(i)] = m;
    }
  }, t);
  MinMax r = part[0];
  for (const auto& m : part) {
    r.min = std::min(r.min, m.min);
    r.max = std::max(r.max, m.max);
  }
  return r;
}

template <typename Acc, typename T>
static Acc sum_parallel(const T* data, size_t n, int threads) {
  int t = threads <= 0 ? default_threads() : threads;
  std::vector<Acc> part(size_t(t), Acc(0));
  long chunk = long((n + size_t(t) - 1) / size_t(t));
  parallel_for(0, t, [&](long b, long e) {
    for (long i = b; i < e; ++i) {
      size_t lo = std::min(n, size_t(i) * size_t(chunk)), hi = std::min(n, lo + size_t(chunk));
      Acc s = 0;
      for (size_t k = lo; k < hi; ++k) s += Acc(data[k]);
      part[size_t(i)] = s;
    }
  }, t);
  Acc s = 0;
  for (Acc p : part) s += p;
  return s;
}

int64_t sum_reduce(const int32_t* data, size_t n, int threads) { return sum_parallel<int64_t>(data, n, threads); }
double sum_reduce(const float* data, size_t n, int threads) { return sum_parallel<double>(data, n, threads); }

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

// --- Summed-area tables ----------------------------------------------------------------------------
// Rows are split into one band per thread. Each band builds its local SAT in one sweep (row prefix
// plus the row above, still in cache); then the last row of every band is carried into the bands
// below it. Unsigned accumulators wrap around, which keeps box sums exact (see reference.hpp).

template <typename In, typename Acc>
static void sat_generic(const In* in, Acc* out, int width, int height, int channels, int threads) {
  const size_t row = size_t(width) * size_t(channels);
  int t = std::max(1, std::min(threads <= 0 ? default_threads() : threads, height));
  std::vector<int> band(size_t(t) + 1);
  for (int i = 0; i <= t; ++i) band[size_t(i)] = int(int64_t(height) * i / t);

  parallel_for(0, t, [&](long b, long e) {
    std::vector<Acc> acc(static_cast<size_t>(channels));
    for (long bi = b; bi < e; ++bi) {
      for (int y = band[size_t(bi)]; y < band[size_t(bi) + 1]; ++y) {
        const In* src = in + size_t(y) * row;
        Acc* dst = out + size_t(y) * row;
        const Acc* above = y > band[size_t(bi)] ? dst - row : nullptr;
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (size_t i = 0; i < row; i += size_t(channels)) {
          for (int c = 0; c < channels; ++c) {
            acc[size_t(c)] += Acc(src[i + size_t(c)]);
            dst[i + size_t(c)] = above ? Acc(acc[size_t(c)] + above[i + size_t(c)]) : acc[size_t(c)];
          }
        }
      }
    }
  }, t);

  if (t == 1) return;
  // carry[b] = true SAT row just above band b (sum of the last local rows of bands 0..b-1).
  std::vector<Acc> carry(size_t(t) * row, Acc(0));
  for (int bi = 1; bi < t; ++bi) {
    const Acc* last = out + size_t(band[size_t(bi)] - 1) * row;
    const Acc* prev = carry.data() + size_t(bi - 1) * row;
    Acc* cur = carry.data() + size_t(bi) * row;
    for (size_t i = 0; i < row; ++i) cur[i] = Acc(prev[i] + last[i]);
  }
  parallel_for(1, t, [&](long b, long e) {
    for (long bi = b; bi < e; ++bi) {
      const Acc* c = carry.data() + size_t(bi) * row;
      for (int y = band[size_t(bi)]; y < band[size_t(bi) + 1]; ++y) {
        Acc* dst = out + size_t(y) * row;
        for (size_t i = 0; i < row; ++i) dst[i] = Acc(dst[i] + c[i]);
      }
    }
  }, t);
}

void sat_rgba8(const ImageRGBA8& image, std::vector<uint32_t>& sat, int threads) {
  sat.resize(image.pixels() * 4);
  if (image.empty()) return;
  sat_generic(image.data.data(), sat.data(), image.width, image.height, 4, threads);
}

void sat_u8(const uint8_t* data, int width, int height, std::vector<uint32_t>& sat, int threads) {
  sat.resize(size_t(std::max(width, 0)) * size_t(std::max(height, 0)));
  if (width <= 0 || height <= 0) return;
  sat_generic(data, sat.data(), width, height, 1, threads);
}

void sat_float(const ImageF& image, std::vector<double>& sat, int threads) {
  sat.resize(image.pixels() * size_t(image.channels));
  if (image.empty()) return;
  sat_generic(image.data.data(), sat.data(), image.width, image.height, image.channels, threads);
}

uint32_t box_sum(const uint32_t* sat, int width, int channels, int c, int x0, int y0, int x1, int y1) {
  auto S = [&](int x, int y) -> uint32_t {
    if (x < 0 || y < 0) return 0;
    return sat[(size_t(y) * size_t(width) + size_t(x)) * size_t(channels) + size_t(c)];
  };
  return S(x1, y1) - S(x0 - 1, y1) - S(x1, y0 - 1) + S(x0 - 1, y0 - 1);
}

// --- Depth of field --------------------------------------------------------------------------------

ImageF normalise_depth(const ImageF& raw, int threads) {
  if (raw.empty()) throw Error("normalise_depth: empty depth map");
  if (raw.channels != 1) throw Error("normalise_depth: depth map must have 1 channel");
  MinMax mm = minmax_reduce(raw.data.data(), raw.data.size(), threads);
  ImageF d(raw.width, raw.height, 1);
  const float lo = mm.min, range = mm.max - mm.min;
  parallel_for(0, long(raw.data.size()), [&](long b, long e) {
    for (long i = b; i < e; ++i)
      d.data[size_t(i)] = range > 0.f ? (raw.data[size_t(i)] - lo) / range : 0.f;
  }, threads);
  return d;
}

// 1/z at normalised depth d. Operation order is fixed (no FMA: -ffp-contract=off) so the GPU kernel
// reproduces it: depth:     t = far - near; z = near + d * t; return 1 / z
//                disparity: a = 1/far; b = 1/near; return a + d * (b - a)
static float inverse_depth(float d, const Params& p) {
  if (p.disparity) {
    const float a = 1.0f / p.far_depth, b = 1.0f / p.near_depth;
    return a + d * (b - a);
  }
  const float z = p.near_depth + d * (p.far_depth - p.near_depth);
  return 1.0f / z;
}

float coc_from_depth(float d, const Params& p) {
  const float c = p.aperture * (inverse_depth(d, p) - inverse_depth(p.focus, p));
  return std::min(std::max(c, -p.max_radius), p.max_radius);
}

ImageF coc_map(const ImageF& depth_normalised, const Params& p, int threads) {
  ImageF c(depth_normalised.width, depth_normalised.height, 1);
  parallel_for(0, long(c.data.size()), [&](long b, long e) {
    for (long i = b; i < e; ++i) c.data[size_t(i)] = coc_from_depth(depth_normalised.data[size_t(i)], p);
  }, threads);
  return c;
}

int blur_radius(float coc) { return int(std::floor(std::fabs(coc) + 0.5f)); }

// One output pixel: the box of radius r around (x, y) clipped to the image, each channel rounded
// half up in integers. With r <= kMaxBlurRadius the true box sum fits in 32 bits.
static inline void blur_pixel(const uint32_t* sat, int w, int h, int x, int y, int r, uint8_t* out) {
  const int x0 = std::max(x - r, 0), x1 = std::min(x + r, w - 1);
  const int y0 = std::max(y - r, 0), y1 = std::min(y + r, h - 1);
  const uint32_t area = uint32_t(x1 - x0 + 1) * uint32_t(y1 - y0 + 1);
  for (int c = 0; c < 4; ++c) {
    const uint32_t s = box_sum(sat, w, 4, c, x0, y0, x1, y1);
    out[c] = uint8_t((uint64_t(s) + area / 2) / area);
  }
}

static void check_sat(const ImageRGBA8& image, const std::vector<uint32_t>& sat) {
  if (sat.size() != image.pixels() * 4) throw Error("blur: SAT size does not match the image");
}

ImageRGBA8 box_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, int radius, int threads) {
  check_sat(image, sat);
  const int r = std::min(std::max(radius, 0), kMaxBlurRadius);
  ImageRGBA8 out(image.width, image.height);
  parallel_for(0, image.height, [&](long b, long e) {
    for (long y = b; y < e; ++y)
      for (int x = 0; x < image.width; ++x) blur_pixel(sat.data(), image.width, image.height, x, int(y), r, out.px(x, int(y)));
  }, threads);
  return out;
}

ImageRGBA8 dof_blur(const ImageRGBA8& image, const std::vector<uint32_t>& sat, const ImageF& coc, int threads) {
  check_sat(image, sat);
  if (coc.width != image.width || coc.height != image.height || coc.channels != 1)
    throw Error("dof_blur: CoC map size does not match the image");
  ImageRGBA8 out(image.width, image.height);
  parallel_for(0, image.height, [&](long b, long e) {
    for (long y = b; y < e; ++y)
      for (int x = 0; x < image.width; ++x) {
        const int r = std::min(blur_radius(coc.at(x, int(y))), kMaxBlurRadius);
        blur_pixel(sat.data(), image.width, image.height, x, int(y), r, out.px(x, int(y)));
      }
  }, threads);
  return out;
}

}  // namespace satlab
