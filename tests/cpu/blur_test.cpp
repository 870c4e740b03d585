#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"
#include "core/pipeline.hpp"
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

// Direct sums of the clipped box (no SAT); returns the area.
uint64_t gather_sums(const ImageRGBA8& img, int x, int y, int r, uint64_t (&s)[4]) {
  int x0 = std::max(x - r, 0), x1 = std::min(x + r, img.width - 1);
  int y0 = std::max(y - r, 0), y1 = std::min(y + r, img.height - 1);
  for (int c = 0; c < 4; ++c) {
    s[c] = 0;
    for (int yy = y0; yy <= y1; ++yy)
      for (int xx = x0; xx <= x1; ++xx) s[c] += img.px(xx, yy)[c];
  }
  return uint64_t(x1 - x0 + 1) * uint64_t(y1 - y0 + 1);
}

// The fractional blur's definition from direct sums: boxes floor(|c|) and floor(|c|) + 1, blended by
// frac(|c|) in float (reference.hpp), or the plain rounded box where the fraction is 0.
void gather_fractional(const ImageRGBA8& img, int x, int y, float coc, uint8_t* out) {
  float a = std::fabs(coc);
  int r0 = 0;
  float t = 0.f;
  if (std::isnan(a))
    r0 = 0;
  else if (a >= float(kMaxBlurRadius))
    r0 = kMaxBlurRadius;
  else
    r0 = int(std::floor(a)), t = a - std::floor(a);
  if (t == 0.f) return gather(img, x, y, r0, out);
  uint64_t s0[4], s1[4];
  const float inv0 = 1.0f / float(gather_sums(img, x, y, r0, s0));
  const float inv1 = 1.0f / float(gather_sums(img, x, y, r0 + 1, s1));
  for (int c = 0; c < 4; ++c) {
    const float m0 = float(uint32_t(s0[c])) * inv0, m1 = float(uint32_t(s1[c])) * inv1;
    const float d = m1 - m0, v = m0 + t * d;
    out[c] = uint8_t(int(v + 0.5f));
  }
}

// Whether every pixel of out equals the direct gather of img with radius(x, y), else the first that does not.
template <typename Radius>
::testing::AssertionResult equals_gather(const ImageRGBA8& out, const ImageRGBA8& img, Radius radius) {
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      uint8_t ref[4];
      gather(img, x, y, radius(x, y), ref);
      for (int c = 0; c < 4; ++c)
        if (out.px(x, y)[c] != ref[c])
          return ::testing::AssertionFailure() << x << "," << y << " c" << c << ": " << int(out.px(x, y)[c])
                                               << ", the gather gives " << int(ref[c]);
    }
  return ::testing::AssertionSuccess();
}

}  // namespace

TEST(Blur, FractionalRadiusEqualsBruteForceGatherOfTheTwoBoxes) {
  for (auto [w, h] : {std::pair{73, 41}, {1, 37}, {29, 1}, {5, 4}}) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("size " + std::to_string(w) + "x" + std::to_string(h) + " seed " + std::to_string(seed));
    ImageRGBA8 img = test::random_image(w, h, seed);
    ImageF coc(w, h, 1);
    std::mt19937 rng(seed + 3);
    std::uniform_real_distribution<float> u(-50.f, 50.f);  // fractions everywhere, radii past the image
    for (auto& v : coc.data) v = u(rng);
    coc.data[0] = 3.f;  // integer radii take the rounded box
    if (coc.data.size() > 4) coc.data[1] = -0.25f, coc.data[2] = std::nanf(""), coc.data[3] = 1e6f;
    std::vector<uint32_t> sat;
    sat_rgba8(img, sat);
    ImageRGBA8 out = dof_blur_fractional(img, sat, coc, 3);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        uint8_t ref[4];
        gather_fractional(img, x, y, coc.at(x, y), ref);
        for (int c = 0; c < 4; ++c)
          ASSERT_EQ(out.px(x, y)[c], ref[c]) << x << "," << y << " c" << c << " coc " << coc.at(x, y);
      }
  }
}

// What removes the banding: as |c| grows from r to r + 1 the result moves from the box of radius r to
// the box of r + 1, never outside them (beyond rounding), instead of jumping at r + 0.5.
TEST(Blur, FractionalRadiusMovesBetweenTheTwoIntegerBoxes) {
  const int w = 41, h = 23;
  ImageRGBA8 img = test::random_image(w, h, test::fresh_seed());
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  ImageF coc(w, h, 1);
  for (int r = 0; r < 4; ++r) {
    std::fill(coc.data.begin(), coc.data.end(), float(r));
    const ImageRGBA8 lo = dof_blur_fractional(img, sat, coc);
    EXPECT_EQ(lo.data, box_blur(img, sat, r).data) << "integer radius " << r;
    const ImageRGBA8 hi = box_blur(img, sat, r + 1);
    for (float t : {0.25f, 0.5f, 0.75f}) {
      std::fill(coc.data.begin(), coc.data.end(), float(r) + t);
      const ImageRGBA8 mid = dof_blur_fractional(img, sat, coc);
      for (size_t i = 0; i < mid.data.size(); ++i) {
        const int a = std::min(lo.data[i], hi.data[i]), b = std::max(lo.data[i], hi.data[i]);
        ASSERT_GE(int(mid.data[i]), a - 1) << "r " << r << " t " << t << " element " << i;
        ASSERT_LE(int(mid.data[i]), b + 1) << "r " << r << " t " << t << " element " << i;
      }
    }
  }
}

TEST(Blur, FractionalRadiusSplitsTheCocIntoFloorAndFraction) {
  EXPECT_EQ(fractional_radius(2.75f).r0, 2);
  EXPECT_EQ(fractional_radius(-2.75f).t, 0.75f);
  EXPECT_EQ(fractional_radius(4.f).t, 0.f);
  EXPECT_EQ(fractional_radius(std::nanf("")).r0, 0);
  EXPECT_EQ(fractional_radius(1e9f).r0, kMaxBlurRadius);
  EXPECT_EQ(fractional_radius(1e9f).t, 0.f);
  EXPECT_EQ(fractional_radius(float(kMaxBlurRadius) - 0.5f).r0, kMaxBlurRadius - 1);
}

TEST(Blur, BoxBlurEqualsBruteForceGather) {
  for (auto [w, h, r] : {std::tuple{1, 1, 3}, {47, 31, 0}, {47, 31, 1}, {64, 17, 5}, {23, 59, 100}, {301, 67, 4}}) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("size " + std::to_string(w) + "x" + std::to_string(h) + " r " + std::to_string(r) +
                 " seed " + std::to_string(seed));
    ImageRGBA8 img = test::random_image(w, h, seed);
    std::vector<uint32_t> sat;
    sat_rgba8(img, sat);
    ASSERT_TRUE(equals_gather(box_blur(img, sat, r), img, [r = r](int, int) { return r; }));
  }
}

// box_blur's division by a multiply: equal to (s + d / 2) / d at both edges of every quotient 0..255, for
// every divisor up to 5000, random ones and the largest area.
TEST(Blur, TheRoundingDividerEqualsIntegerDivision) {
  std::mt19937 rng(test::fresh_seed());
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 5000; ++d) divisors.push_back(d);
  for (int i = 0; i < 2000; ++i) divisors.push_back(5001 + rng() % (4095u * 4095u - 5000u));
  divisors.push_back(4095u * 4095u);
  for (const uint32_t d : divisors) {
    const RoundingDivider div(d);
    for (uint32_t k = 0; k <= 255; ++k)
      // The sums whose rounded mean changes between k and k + 1 (s + d / 2 at k d - 1, k d, k d + 1), and
      // the box means 0 and 255 exactly.
      for (const int64_t off : {-1, 0, 1}) {
        const int64_t s = int64_t(k) * d - d / 2 + off;
        if (s < 0 || s > int64_t(255) * d) continue;
        const uint32_t want = (uint32_t(s) + d / 2) / d;
        ASSERT_EQ(div(uint32_t(s)), want) << "s " << s << ", d " << d;
      }
    ASSERT_EQ(div(255u * d), 255u) << "d " << d;
    ASSERT_EQ(div(0), 0u) << "d " << d;
  }
}

// Sums at their largest: all-255 images with boxes up to the largest radius, and a constant image, where
// every interior mean is exact (the divider's integer quotients).
TEST(Blur, BoxBlurOfConstantImagesIsTheConstant) {
  for (const uint8_t v : {uint8_t(255), uint8_t(1), uint8_t(128)})
    for (const auto& [w, h, r] : {std::tuple{300, 7, 10}, {4200, 3, kMaxBlurRadius}, {9, 4300, kMaxBlurRadius}}) {
      ImageRGBA8 img(w, h);
      std::fill(img.data.begin(), img.data.end(), v);
      std::vector<uint32_t> sat;
      sat_rgba8(img, sat);
      const ImageRGBA8 out = box_blur(img, sat, r);
      ASSERT_TRUE(std::all_of(out.data.begin(), out.data.end(), [&](uint8_t x) { return x == v; }))
          << int(v) << " at " << w << "x" << h << " r " << r;
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
  const ImageRGBA8 out = dof_blur(img, sat, coc);
  ASSERT_TRUE(equals_gather(out, img, [&](int x, int y) { return blur_radius(coc.at(x, y)); }));
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
      ASSERT_EQ(out.height, h);
      ASSERT_TRUE(equals_gather(out, img, [&](int x, int y) { return blur_radius(coc.at(x, y)); }));
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

TEST(Blur, CpuPipelineUsesTheFractionalBlurWhenAsked) {
  const int w = 37, h = 29;
  ImageRGBA8 img = test::random_image(w, h, test::fresh_seed());
  ImageF depth(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) depth.at(x, y) = float(x + y);  // a smooth ramp: many fractional radii
  Params p;
  p.aperture = 60.f;
  p.fractional_radius = true;
  p.dof_mode = "gather_box";
  const auto pipe = test::ran_cpu_pipeline(img, depth, p);
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  const ImageF coc = coc_map(normalise_depth(depth), p);
  EXPECT_EQ(pipe->result().data, dof_blur_fractional(img, sat, coc).data);
  EXPECT_NE(pipe->result().data, dof_blur(img, sat, coc).data);  // the ramp has fractions to blend
}
