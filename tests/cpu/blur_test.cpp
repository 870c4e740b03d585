#include <gtest/gtest.h>

#include <random>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

// Direct gather: the mean of the clipped box, rounded half up.
void gather(const ImageRGBA8& img, int x, int y, int r, uint8_t* out) {
  int x0 = std::max(x - r, 0), x1 = std::min(x + r, img.width - 1);
  int y0 = std::max(y - r, 0), y1 = std::min(y + r, img.height - 1);
  uint64_t area = uint64_t(x1 - x0 + 1) * uint64_t(y1 - y0 + 1);
  for (int c = 0; c < 4; ++c) {
    uint64_t s = 0;
    for (int yy = y0; yy <= y1; ++yy)
      for (int xx = x0; xx <= x1; ++xx) s += img.px(xx, yy)[c];
    out[c] = uint8_t((s + area / 2) / area);
  }
}

}  // namespace

TEST(Blur, BoxBlurEqualsBruteForceGather) {
  for (auto [w, h, r] : {std::tuple{1, 1, 3}, {47, 31, 0}, {47, 31, 1}, {64, 17, 5}, {23, 59, 100}}) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("size " + std::to_string(w) + "x" + std::to_string(h) + " r " + std::to_string(r) +
                 " seed " + std::to_string(seed));
    ImageRGBA8 img = test::random_image(w, h, seed);
    std::vector<uint32_t> sat;
    sat_rgba8(img, sat);
    ImageRGBA8 out = box_blur(img, sat, r);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        uint8_t ref[4];
        gather(img, x, y, r, ref);
        for (int c = 0; c < 4; ++c) ASSERT_EQ(out.px(x, y)[c], ref[c]) << x << "," << y << " c" << c;
      }
  }
}

TEST(Blur, RadiusZeroIsIdentity) {
  ImageRGBA8 img = test::random_image(31, 7, test::fresh_seed());
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  EXPECT_EQ(box_blur(img, sat, 0).data, img.data);
}

TEST(Blur, DofBlurWithPerPixelRadiusEqualsBruteForceGather) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int w = 73, h = 41;
  ImageRGBA8 img = test::random_image(w, h, seed);
  ImageF coc(w, h, 1);
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<float> u(-90.f, 90.f);  // radii from 0 to past the image size
  for (auto& v : coc.data) v = u(rng);
  coc.at(0, 0) = 0.f;
  coc.at(5, 5) = 0.49f;
  coc.at(6, 5) = -0.5f;
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  ImageRGBA8 out = dof_blur(img, sat, coc);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t ref[4];
      gather(img, x, y, blur_radius(coc.at(x, y)), ref);
      for (int c = 0; c < 4; ++c) ASSERT_EQ(out.px(x, y)[c], ref[c]) << x << "," << y << " c" << c;
    }
  EXPECT_EQ(blur_radius(0.49f), 0);
  EXPECT_EQ(blur_radius(-0.5f), 1);
  EXPECT_EQ(blur_radius(2.5f), 3);
}

TEST(Blur, MismatchedSatIsRejected) {
  ImageRGBA8 img = test::random_image(8, 8, 1);
  std::vector<uint32_t> sat(10);
  EXPECT_THROW(box_blur(img, sat, 1), Error);
}

TEST(Blur, DofBlurOnThinImagesWithAnyThreadCountEqualsBruteForceGather) {
  for (auto [w, h] : {std::pair{1, 1}, {1, 57}, {61, 1}, {2, 3}}) {
    for (int threads : {1, 2, 5}) {
      const uint32_t seed = test::fresh_seed();
      SCOPED_TRACE("size " + std::to_string(w) + "x" + std::to_string(h) + " threads " +
                   std::to_string(threads) + " seed " + std::to_string(seed));
      ImageRGBA8 img = test::random_image(w, h, seed);
      ImageF coc(w, h, 1);
      std::mt19937 rng(seed + 7);
      for (auto& v : coc.data) v = float(int(rng() % 140) - 70) * 0.5f;  // radii 0..35 of either sign
      std::vector<uint32_t> sat;
      sat_rgba8(img, sat, threads);
      ImageRGBA8 out(3, 3);  // the wrong size: the into-variant resizes it
      dof_blur(img, sat, coc, out, threads);
      ASSERT_EQ(out.width, w);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          uint8_t ref[4];
          gather(img, x, y, blur_radius(coc.at(x, y)), ref);
          for (int c = 0; c < 4; ++c) ASSERT_EQ(out.px(x, y)[c], ref[c]) << x << "," << y << " c" << c;
        }
    }
  }
}

TEST(Blur, ReusedOutputBufferGivesTheSameResult) {
  ImageRGBA8 img = test::random_image(29, 19, test::fresh_seed());
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  ImageRGBA8 out;
  box_blur(img, sat, 2, out);
  std::fill(out.data.begin(), out.data.end(), uint8_t(7));  // stale contents must not leak through
  box_blur(img, sat, 2, out);
  EXPECT_EQ(out.data, box_blur(img, sat, 2).data);
}
