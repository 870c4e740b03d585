// CPU stereo matching (see stereo.hpp): the reference of gpu/depth/stereo*.cu and the CPU backend's path.
#include "core/stereo.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab {

void validate(const StereoParams& p) {
  if (p.disparities < 1 || p.disparities > kMaxDisparities)
    throw Error("stereo: disparities " + std::to_string(p.disparities) + " outside [1, " +
                std::to_string(kMaxDisparities) + "]");
  if (p.window_radius < 0 || p.window_radius > kMaxStereoWindowRadius)
    throw Error("stereo: window radius " + std::to_string(p.window_radius) + " outside [0, " +
                std::to_string(kMaxStereoWindowRadius) + "]");
  if (p.wide_radius < 0 || p.wide_radius > stereo_max_wide_radius(p.window_radius))
    throw Error("stereo: wide window radius " + std::to_string(p.wide_radius) + " outside [0, " +
                std::to_string(stereo_max_wide_radius(p.window_radius)) + "] at window radius " +
                std::to_string(p.window_radius) + " (its sums must fit in 16 bits)");
  if (p.lr_tolerance < 0) throw Error("stereo: negative left-right tolerance");
  if (p.uniqueness < 0 || p.uniqueness > 100) throw Error("stereo: uniqueness outside [0, 100] percent");
  if (p.min_margin < 0 || p.min_margin > 65535) throw Error("stereo: minimum margin outside [0, 65535]");
  if (p.census_threshold < 0 || p.census_threshold > 255)
    throw Error("stereo: census threshold outside [0, 255]");
}

std::vector<uint64_t> census_9x7(const ImageRGBA8& image, int t, int threads) {
  const int w = image.width, h = image.height;
  std::vector<uint8_t> luma(image.pixels());
  for (size_t i = 0; i < luma.size(); ++i) luma[i] = stereo_luma(image.data.data() + 4 * i);
  std::vector<uint64_t> census(image.pixels());
  constexpr int rx = kCensusWidth / 2, ry = kCensusHeight / 2;
  parallel_for(
      0, h,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < w; ++x) {
            const uint8_t c = luma[size_t(y) * size_t(w) + size_t(x)];
            uint64_t bits = 0;
            int k = 0;
            for (int dy = -ry; dy <= ry; ++dy) {
              const int yy = std::clamp(y + dy, 0, h - 1);
              for (int dx = -rx; dx <= rx; ++dx) {
                if (dx == 0 && dy == 0) continue;
                const int xx = std::clamp(x + dx, 0, w - 1);
                if (int(luma[size_t(yy) * size_t(w) + size_t(xx)]) + t < int(c)) bits |= uint64_t(1) << k;
                ++k;
              }
            }
            census[size_t(y) * size_t(w) + size_t(x)] = bits;
          }
      },
      threads);
  return census;
}

void stereo_cost_slice(const std::vector<uint64_t>& cl, const std::vector<uint64_t>& cr, int width,
                       int height, int d, uint8_t* out, int threads) {
  parallel_for(
      0, height,
      [&](long y0, long y1) {
        for (long y = y0; y < y1; ++y) {
          const size_t row = size_t(y) * size_t(width);
          for (int x = 0; x < width; ++x)
            out[row + size_t(x)] =
                uint8_t(__builtin_popcountll(cl[row + size_t(x)] ^ cr[row + size_t(std::max(x - d, 0))]));
        }
      },
      threads);
}

void stereo_lr_check(const std::vector<int32_t>& left_wta, const std::vector<int32_t>& right_wta,
                     const float* subpixel, const uint8_t* unique, int width, int height, int tolerance,
                     float* raw, int threads, const float* wide_subpixel, const uint8_t* wide_unique) {
  parallel_for(
      0, height,
      [&](long y0, long y1) {
        for (long y = y0; y < y1; ++y) {
          const size_t row = size_t(y) * size_t(width);
          for (int x = 0; x < width; ++x) {
            const int dl = left_wta[row + size_t(x)];
            const int xr = x - dl;
            const bool ok =
                unique[row + size_t(x)] && xr >= 0 && std::abs(right_wta[row + size_t(xr)] - dl) <= tolerance;
            const bool wide = !ok && wide_unique && wide_unique[row + size_t(x)];
            raw[row + size_t(x)] = ok     ? subpixel[row + size_t(x)]
                                   : wide ? wide_subpixel[row + size_t(x)]
                                          : kNoDisparity;
          }
        }
      },
      threads);
}

void stereo_fill_holes(const float* raw, int width, int height, float* out, int threads) {
  parallel_for(
      0, height,
      [&](long y0, long y1) {
        for (long y = y0; y < y1; ++y) {
          const float* in = raw + size_t(y) * size_t(width);
          float* o = out + size_t(y) * size_t(width);
          // Left to right: the nearest kept value on the left; then right to left, the smaller of it and
          // the nearest kept value on the right.
          float last = kNoDisparity;
          for (int x = 0; x < width; ++x) {
            if (in[x] != kNoDisparity) last = in[x];
            o[x] = in[x] != kNoDisparity ? in[x] : last;
          }
          last = kNoDisparity;
          for (int x = width - 1; x >= 0; --x) {
            if (in[x] != kNoDisparity) {
              last = in[x];
              continue;
            }
            if (last != kNoDisparity && (o[x] == kNoDisparity || last < o[x])) o[x] = last;
          }
        }
      },
      threads);
}

StereoResult stereo_match(const ImageRGBA8& left, const ImageRGBA8& right, const StereoParams& p,
                          int threads) {
  validate(p);
  if (left.width != right.width || left.height != right.height)
    throw Error("stereo: the images differ in size (" + std::to_string(left.width) + "x" +
                std::to_string(left.height) + " and " + std::to_string(right.width) + "x" +
                std::to_string(right.height) + ")");
  if (left.empty()) throw Error("stereo: empty images");
  const int w = left.width, h = left.height, r = p.window_radius, D = p.disparities;
  const size_t n = left.pixels();
  const std::vector<uint64_t> cl = census_9x7(left, p.census_threshold, threads),
                              cr = census_9x7(right, p.census_threshold, threads);

  const int wr = p.wide_radius;
  // Running winner-take-all state of the square window and the wide one; the right image's winners.
  std::vector<StereoWta> left_state(n), wide_state(wr > 0 ? n : 0);
  std::vector<uint32_t> best_r(n, UINT32_MAX);
  StereoResult res;
  res.left_wta.assign(n, 0);
  res.right_wta.assign(n, 0);
  std::vector<uint8_t> cost(n);
  std::vector<uint32_t> sat;
  for (int d = 0; d < D; ++d) {
    stereo_cost_slice(cl, cr, w, h, d, cost.data(), threads);
    sat_u8(cost.data(), w, h, sat, threads);
    parallel_for(
        0, h,
        [&](long y0, long y1) {
          for (int y = int(y0); y < int(y1); ++y) {
            const int ya = std::max(y - r, 0), yb = std::min(y + r, h - 1);
            auto agg = [&](int x, int rx) {
              return box_sum(sat.data(), w, 1, 0, std::max(x - rx, 0), ya, std::min(x + rx, w - 1), yb);
            };
            for (int x = 0; x < w; ++x) {
              const size_t i = size_t(y) * size_t(w) + size_t(x);
              stereo_wta_step(left_state[i], uint32_t(d), agg(x, r));
              if (wr > 0 && d % kStereoWideStep == 0)
                stereo_wta_step(wide_state[i], uint32_t(d / kStereoWideStep), agg(x, wr));
              // The right pixel x seen at disparity d is the left pixel x + d.
              if (x + d < w) {
                const uint32_t ar = agg(x + d, r);
                if (ar < best_r[i]) {
                  best_r[i] = ar;
                  res.right_wta[i] = d;
                }
              }
            }
          }
        },
        threads);
  }
  std::vector<float> sub(n), wide_sub(wr > 0 ? n : 0);
  std::vector<uint8_t> unique(n), wide_unique(wr > 0 ? n : 0);
  for (size_t i = 0; i < n; ++i) {
    const StereoWta& s = left_state[i];
    res.left_wta[i] = int32_t(s.wta);
    sub[i] = stereo_subpixel(int(s.wta), D, s.c_minus, s.best, s.c_plus);
    unique[i] = stereo_unique(s.best, s.second, p.uniqueness, p.min_margin);
    if (wr > 0) {
      const StereoWta& t = wide_state[i];
      wide_sub[i] = stereo_wide_disparity(t, D);
      wide_unique[i] = stereo_unique(t.best, t.second, p.uniqueness, p.min_margin);
    }
  }
  res.raw = ImageF(w, h);
  stereo_lr_check(res.left_wta, res.right_wta, sub.data(), unique.data(), w, h, p.lr_tolerance,
                  res.raw.data.data(), threads, wr > 0 ? wide_sub.data() : nullptr,
                  wr > 0 ? wide_unique.data() : nullptr);
  res.disparity = ImageF(w, h);
  if (p.fill_holes)
    stereo_fill_holes(res.raw.data.data(), w, h, res.disparity.data.data(), threads);
  else
    res.disparity.data = res.raw.data;
  return res;
}

uint16_t kitti_disparity(float d) {
  if (!(d >= 0.f)) return 0;  // kNoDisparity (and NaN)
  const double v = std::round(double(d) * 256.0);
  return uint16_t(std::clamp(v, 1.0, 65535.0));
}

}  // namespace satlab
