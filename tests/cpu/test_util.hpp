// Shared helpers for the CPU tests (and the GPU ones): seeded random images (the seed is printed on failure).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "core/image.hpp"

namespace satlab::test {

// A fresh seed per call; SCOPED_TRACE it so a failure can be replayed.
inline uint32_t fresh_seed() {
  return std::random_device{}();
}

inline ImageRGBA8 random_image(int w, int h, uint32_t seed) {
  ImageRGBA8 img(w, h);
  std::mt19937 rng(seed);
  for (auto& v : img.data) v = uint8_t(rng() & 0xff);
  return img;
}

// What a "defined" CoC map is for a depth map with NaN holes: no CoC is NaN or infinite, every one lies
// within max_radius, and a pixel without depth gets the bound itself, +-max_radius (coc_from_depth).
inline ::testing::AssertionResult coc_is_defined(const ImageF& coc, const ImageF& depth, float max_radius) {
  for (size_t i = 0; i < coc.data.size(); ++i) {
    const float c = coc.data[i];
    if (!std::isfinite(c)) return ::testing::AssertionFailure() << "pixel " << i << ": CoC " << c;
    if (std::fabs(c) > max_radius)
      return ::testing::AssertionFailure()
             << "pixel " << i << ": |CoC| " << c << " > max radius " << max_radius;
    if (std::isnan(depth.data[i]) && std::fabs(c) != max_radius)
      return ::testing::AssertionFailure()
             << "pixel " << i << " has no depth but CoC " << c << ", not +-" << max_radius;
  }
  return ::testing::AssertionSuccess();
}

// Two planes: a red square (near, CoC near_c) on a green-and-blue striped background (CoC far_c), 96 x 64:
// the occlusion scene of the DoF modes' tests.
struct TwoPlanes {
  ImageRGBA8 img{96, 64};
  ImageF coc{96, 64, 1};
  TwoPlanes(float near_c, float far_c) {
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 96; ++x) {
        const bool fg = x >= 40 && x < 70 && y >= 16 && y < 48;
        uint8_t* px = img.px(x, y);
        px[0] = fg ? 230 : 0, px[1] = fg ? 0 : ((x / 3) & 1 ? 200 : 40), px[2] = fg ? 0 : 160, px[3] = 255;
        coc.at(x, y) = fg ? near_c : far_c;
      }
  }
};

// Mixed pixels (dof::mixed_of's input) planted in a random image and CoC map: in every third column, a
// pixel whose right neighbour is 2 px nearer and whose left one lies on its own surface, with 3/10 of the
// right neighbour's colour and 7/10 of the left one's (in the sRGB bytes: near enough a linear mix for
// most pairs to split).
inline void make_mixed_pixels(ImageRGBA8& img, ImageF& coc) {
  for (int y = 0; y < img.height; ++y)
    for (int x = 1; x + 1 < img.width; x += 3) {
      const float c = coc.at(x - 1, y) == coc.at(x - 1, y) ? coc.at(x - 1, y) : 0.f;
      coc.at(x, y) = c + 0.1f;
      coc.at(x + 1, y) = c + 2.f;
      for (int k = 0; k < 3; ++k)
        img.px(x, y)[k] = uint8_t((3 * img.px(x + 1, y)[k] + 7 * img.px(x - 1, y)[k] + 5) / 10);
    }
}

}  // namespace satlab::test
