// Grain (core/grain.hpp): the noise estimate finds a known noise level on flat and on edged images, the
// grain restores a blurred region's noise to the photo's, nothing changes at the focus plane or at grain 0,
// and tiled runs refuse it with one line.
#include "core/grain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "core/grain_pixel.hpp"
#include "core/params.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

// A grey image (or 40-px checks of 60 and 190) with Gaussian noise of sigma per channel.
ImageRGBA8 noisy(int w, int h, double sigma, bool checks, uint32_t seed) {
  ImageRGBA8 img(w, h);
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, sigma);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double base = checks ? ((x / 40 + y / 40) % 2 ? 190 : 60) : 128;
      uint8_t* p = img.px(x, y);
      for (int c = 0; c < 3; ++c) p[c] = uint8_t(std::clamp(std::lround(base + g(rng)), 0L, 255L));
      p[3] = 255;
    }
  return img;
}

}  // namespace

TEST(Grain, TheEstimateFindsTheNoiseOnFlatAndEdgedImages) {
  for (const bool checks : {false, true})
    for (const double sigma : {2.0, 5.0, 9.0}) {
      const GrainNoise n = grain_noise(grain_sums(noisy(301, 203, sigma, checks, test::fresh_seed()), 2));
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(n.sigma[c], sigma, 0.12 * sigma) << (checks ? "checks" : "flat") << " sigma " << sigma;
    }
  // A clean image has (almost) none; one of 2 x 2 pixels has no interior.
  ImageRGBA8 clean(64, 64);
  for (size_t i = 0; i < clean.data.size(); ++i) clean.data[i] = uint8_t(i % 4 == 3 ? 255 : 100);
  EXPECT_EQ(grain_noise(grain_sums(clean)).sigma[0], 0.f);
  EXPECT_EQ(grain_noise(grain_sums(ImageRGBA8(2, 2))).sigma[1], 0.f);
}

TEST(Grain, NoiseIsUnitVarianceAndTheShareFollowsTheBlur) {
  double s = 0, s2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double v = grain::noise(uint32_t(i % 487), uint32_t(i / 487), uint32_t(i % 3));
    s += v, s2 += v * v;
  }
  EXPECT_NEAR(s / n, 0.0, 0.01);
  EXPECT_NEAR(s2 / n, 1.0, 0.02);
  EXPECT_EQ(grain::blur_share(0.f), 0.f);
  EXPECT_EQ(grain::blur_share(std::nanf("")), 0.f);
  EXPECT_NEAR(grain::blur_share(1.f), std::sqrt(1 - 1 / (1 + M_PI)), 1e-6);
  EXPECT_GT(grain::blur_share(-8.f), 0.99f);
}

// A noisy photo blurred by a large CoC loses its noise; grain 1 gives it back (within 15%), grain 0 and
// the focus plane change nothing, and the same frame gets the same grain.
TEST(Grain, GrainOneRestoresTheBlurredRegionsNoise) {
  const int w = 240, h = 160;
  const ImageRGBA8 img = noisy(w, h, 6.0, false, 11);
  ImageF depth(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) depth.at(x, y) = x < w / 2 ? 0.f : 1.f;  // left in focus, right far
  Params p;
  p.focus = 0.f, p.aperture = 120.f, p.max_radius = 12.f, p.near_depth = 1.f, p.far_depth = 10.f;
  const auto plain = test::ran_cpu_pipeline(img, depth, p);
  p.grain = 1.f;
  const auto grainy = test::ran_cpu_pipeline(img, depth, p);
  const ImageF& coc = grainy->coc();
  const float in = grain_noise(grain_sums(img)).sigma[0];
  const float blurred = grain_noise(grain_sums(plain->result(), 2, &coc, 8.f)).sigma[0];
  const float restored = grain_noise(grain_sums(grainy->result(), 2, &coc, 8.f)).sigma[0];
  EXPECT_LT(blurred, 0.3f * in);
  EXPECT_NEAR(restored, in, 0.15f * in);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w / 2 - 14; ++x)  // far from the blurred half: CoC 0
      for (int c = 0; c < 4; ++c) ASSERT_EQ(grainy->result().px(x, y)[c], plain->result().px(x, y)[c]);
  EXPECT_EQ(test::ran_cpu_pipeline(img, depth, p)->result().data, grainy->result().data);
  p.grain = 0.f;
  EXPECT_EQ(test::ran_cpu_pipeline(img, depth, p)->result().data, plain->result().data);
  p.grain = 4.5f;
  EXPECT_THROW(validate(p), Error);
}
