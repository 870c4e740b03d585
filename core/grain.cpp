// Grain's CPU reference (core/grain.hpp).
#include "core/grain.hpp"

#include <cmath>
#include <mutex>

#include "core/grain_pixel.hpp"
#include "core/parallel.hpp"

namespace satlab {

GrainSums grain_sums(const ImageRGBA8& img, int threads, const ImageF* coc, float min_coc) {
  GrainSums total;
  std::mutex m;
  const int W = img.width, H = img.height;
  if (W < 3 || H < 3) return total;
  parallel_for(
      1, H - 1,
      [&](long y0, long y1) {
        GrainSums s;
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 1; x < W - 1; ++x) {
            if (coc && !(std::fabs(coc->at(x, y)) >= min_coc)) continue;
            for (int c = 0; c < 3; ++c) {
              int v[9];
              for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 3; ++i) v[j * 3 + i] = img.px(x - 1 + i, y - 1 + j)[c];
              if (grain::sobel(v) > grain::kFlatGradient) continue;
              s.response[c] += uint64_t(grain::mask_response(v)), ++s.pixels[c];
            }
          }
        const std::lock_guard<std::mutex> lock(m);
        for (int c = 0; c < 3; ++c) total.response[c] += s.response[c], total.pixels[c] += s.pixels[c];
      },
      threads);
  return total;
}

GrainNoise grain_noise(const GrainSums& s) {
  GrainNoise n;
  for (int c = 0; c < 3; ++c)
    n.sigma[c] = s.pixels[c] ? float(std::sqrt(M_PI / 2) * double(s.response[c]) / (6.0 * double(s.pixels[c]))) : 0.f;
  return n;
}

void apply_grain(ImageRGBA8& out, const ImageF& coc, float amount, const GrainNoise& n, int threads) {
  const int W = out.width;
  const float as[3] = {amount * n.sigma[0], amount * n.sigma[1], amount * n.sigma[2]};
  parallel_for(
      0, out.height,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < W; ++x) {
            const float share = grain::blur_share(coc.at(x, y));
            if (share == 0.f) continue;
            uint8_t* p = out.px(x, y);
            for (int c = 0; c < 3; ++c)
              p[c] = grain::add(p[c], as[c], grain::noise(uint32_t(x), uint32_t(y), uint32_t(c)), share);
          }
      },
      threads);
}

}  // namespace satlab
