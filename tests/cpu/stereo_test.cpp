// The CPU stereo matcher (core/stereo.hpp) on tiny pairs with known disparity.
#include "core/stereo.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"
#include "tests/stereo_pair.hpp"

namespace satlab {
namespace {

struct Score {
  double bad = 0;      // fraction of visible pixels with |d - truth| > 1 (rejected ones count as bad)
  double invalid = 0;  // fraction of visible pixels left without a disparity
};
Score score(const ImageF& d, const test::StereoPair& s) {
  size_t n = 0, bad = 0, invalid = 0;
  for (size_t i = 0; i < s.truth.size(); ++i) {
    if (!s.visible[i]) continue;
    ++n;
    if (d.data[i] == kNoDisparity) ++invalid;
    if (d.data[i] == kNoDisparity || std::fabs(d.data[i] - s.truth[i]) > 1.f) ++bad;
  }
  return {double(bad) / double(n), double(invalid) / double(n)};
}

TEST(Stereo, FindsTheKnownDisparitiesOfATexturedPlaneAndARectangleInFront) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  const test::StereoPair s = test::make_stereo_pair(163, 97, 3, 11, seed);
  StereoParams p;
  p.disparities = 16;
  p.window_radius = 3;
  const StereoResult r = stereo_match(s.left, s.right, p);
  // Away from the depth edges (further than the census and box windows reach) every visible pixel is
  // matched exactly: random texture leaves no ambiguity.
  const int reach = kCensusWidth / 2 + p.window_radius + 1;
  const int w = s.left.width, h = s.left.height;
  size_t checked = 0;
  for (int y = reach; y < h - reach; ++y)
    for (int x = reach; x < w - reach; ++x) {
      bool near_edge = false;
      for (int dy = -reach; dy <= reach && !near_edge; ++dy)
        for (int dx = -reach - 11; dx <= reach + 11 && !near_edge; ++dx) {
          const int xx = std::clamp(x + dx, 0, w - 1), yy = std::clamp(y + dy, 0, h - 1);
          near_edge =
              s.truth[size_t(yy) * size_t(w) + size_t(xx)] != s.truth[size_t(y) * size_t(w) + size_t(x)];
        }
      const size_t i = size_t(y) * size_t(w) + size_t(x);
      if (near_edge || !s.visible[i] || x < 11 + reach) continue;
      ++checked;
      ASSERT_EQ(r.left_wta[i], int(s.truth[i])) << "at " << x << "," << y;
      ASSERT_LT(std::fabs(r.raw.data[i] - s.truth[i]), 0.5f) << "at " << x << "," << y;
    }
  EXPECT_GT(checked, 500u);
  // Over all visible pixels, edges included, after the check and the filling.
  const Score filled = score(r.disparity, s);
  EXPECT_LT(filled.bad, 0.05) << "invalid " << filled.invalid;
  EXPECT_EQ(filled.invalid, 0.0);
  // The check rejects most of the occluded band (background seen only by the left camera).
  size_t occluded = 0, rejected = 0;
  for (size_t i = 0; i < s.truth.size(); ++i)
    if (!s.visible[i] && size_t(i % size_t(w)) >= 11) {
      ++occluded;
      rejected += r.raw.data[i] == kNoDisparity;
    }
  EXPECT_GT(double(rejected), 0.6 * double(occluded));
}

// The GPU matcher builds one SAT over K cost slices stacked vertically and reads each slice's windows from
// it, the row above a window possibly in the slice before: the slices above cancel in the differences.
// Checked here on the CPU's own SAT, every other slice at the largest cost (62) between random ones.
TEST(Stereo, BoxSumsOfAStackedSatEqualThoseOfEachSlicesOwnSat) {
  const int w = 37, h = 23, K = 5, r = 4;
  std::vector<uint8_t> stack(size_t(w) * h * K);
  const ImageRGBA8 noise = test::random_image(w, h * K, test::fresh_seed());
  for (size_t i = 0; i < stack.size(); ++i) stack[i] = uint8_t(noise.data[4 * i] % 63);
  for (int k = 1; k < K; k += 2)
    std::fill(stack.begin() + ptrdiff_t(size_t(k) * w * h), stack.begin() + ptrdiff_t(size_t(k + 1) * w * h),
              62);
  std::vector<uint32_t> stacked, own;
  sat_u8(stack.data(), w, h * K, stacked);
  for (int k = 0; k < K; ++k) {
    sat_u8(stack.data() + size_t(k) * w * h, w, h, own);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int x0 = std::max(x - r, 0), x1 = std::min(x + r, w - 1), y0 = std::max(y - r, 0),
                  y1 = std::min(y + r, h - 1);
        ASSERT_EQ(box_sum(stacked.data(), w, 1, 0, x0, k * h + y0, x1, k * h + y1),
                  box_sum(own.data(), w, 1, 0, x0, y0, x1, y1))
            << "slice " << k << " at " << x << "," << y;
      }
  }
}

TEST(Stereo, SubpixelOffsetIsTheParabolaVertexAndStaysInsideHalfAPixel) {
  EXPECT_FLOAT_EQ(stereo_subpixel(5, 16, 10, 4, 10), 5.f);
  EXPECT_FLOAT_EQ(stereo_subpixel(5, 16, 10, 4, 16), 5.f + (10.f - 16.f) / (2.f * 18.f));
  EXPECT_FLOAT_EQ(stereo_subpixel(5, 16, 5, 4, 100), 5.f + (5.f - 100.f) / (2.f * 97.f));
  EXPECT_GE(stereo_subpixel(5, 16, 5, 4, 1000), 4.5f);
  EXPECT_FLOAT_EQ(stereo_subpixel(0, 16, 0, 4, 10), 0.f);  // range ends: the integer winner
  EXPECT_FLOAT_EQ(stereo_subpixel(15, 16, 9, 4, 0), 15.f);
  EXPECT_FLOAT_EQ(stereo_subpixel(3, 16, 4, 4, 4), 3.f);  // flat
}

TEST(Stereo, HoleFillingTakesTheFartherNeighbourAlongTheRow) {
  const float N = kNoDisparity;
  const float raw[] = {N, 5, N, N, 9, 9, N, 2, N, N, N, N, N, N, N, N, N};
  float out[17];
  stereo_fill_holes(raw, 7, 2, out, 1);  // rows 0 and 1; the third row (all rejected) is left out
  stereo_fill_holes(raw + 14, 3, 1, out + 14, 1);
  const float want[] = {5, 5, 5, 5, 9, 9, 9, 2, 2, 2, 2, 2, 2, 2, N, N, N};
  for (int i = 0; i < 17; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(Stereo, LeftRightCheckKeepsOnlyConsistentPixels) {
  // Row of 6: left winners, right winners; pixel 0 at d=1 looks outside the right image.
  const std::vector<int32_t> l = {1, 1, 2, 2, 0, 3}, r = {1, 4, 2, 1, 0, 0};
  const float sub[] = {1.1f, 1.2f, 2.3f, 2.4f, 0.1f, 2.9f};
  float raw[6];
  const uint8_t unique[] = {1, 1, 1, 1, 1, 1};
  stereo_lr_check(l, r, sub, unique, 6, 1, 1, raw, 1);
  const uint8_t not_unique[] = {1, 1, 0, 1, 1, 1};
  float raw2[6];
  stereo_lr_check(l, r, sub, not_unique, 6, 1, 1, raw2, 1);
  EXPECT_EQ(raw2[2], kNoDisparity);
  EXPECT_EQ(raw2[1], 1.2f);
  // x=1: r[0]=1 ok; x=2: r[0]=1 ok (|1-2|<=1); x=3: r[1]=4 bad; x=4: r[4]=0 ok; x=5: r[2]=2 ok.
  const float want[] = {kNoDisparity, 1.2f, 2.3f, kNoDisparity, 0.1f, 2.9f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(raw[i], want[i]) << i;
}

TEST(Stereo, UniquenessRejectsTiesAndNearTiesButNotClearWinners) {
  EXPECT_FALSE(stereo_unique(0, 0, 0, 0));       // flat: every disparity costs the same
  EXPECT_FALSE(stereo_unique(100, 110, 10, 0));  // within 10%
  EXPECT_TRUE(stereo_unique(100, 111, 10, 0));
  EXPECT_FALSE(stereo_unique(100, 111, 10, 12));  // too few bits apart
  EXPECT_TRUE(stereo_unique(100, 112, 10, 12));
  EXPECT_TRUE(stereo_unique(59000, kNoSum, 50, 100));  // nothing 2+ disparities away
}

// A flat grey pair with one textured column band at disparity 6 (x 50..69 in the left image): the flat
// part matches every disparity equally well in any window that does not reach the band.
test::StereoPair flat_pair_with_a_textured_band(uint32_t seed) {
  test::StereoPair s = test::make_stereo_pair(120, 40, 6, 6, seed);  // one plane at disparity 6
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 120; ++x) {
      if (x < 50 || x >= 70) std::fill(s.left.px(x, y), s.left.px(x, y) + 3, uint8_t(128));
      if (x < 44 || x >= 64) std::fill(s.right.px(x, y), s.right.px(x, y) + 3, uint8_t(128));
    }
  return s;
}

// stereo_match over 12 disparities with the given wide window radius (0: the square window alone).
StereoResult match_12(const test::StereoPair& s, int wide_radius) {
  StereoParams p;
  p.disparities = 12;
  p.wide_radius = wide_radius;
  return stereo_match(s.left, s.right, p);
}

TEST(Stereo, TexturelessRegionsAreRejectedThenFilledFromTheirRows) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  const test::StereoPair s = flat_pair_with_a_textured_band(seed);
  const StereoResult r = match_12(s, 0);
  EXPECT_EQ(r.raw.at(20, 20), kNoDisparity);  // flat: rejected
  EXPECT_EQ(r.raw.at(100, 20), kNoDisparity);
  EXPECT_NEAR(r.raw.at(60, 20), 6.f, 0.5f);        // textured: matched
  EXPECT_NEAR(r.disparity.at(20, 20), 6.f, 0.5f);  // filled from the row
  EXPECT_NEAR(r.disparity.at(100, 20), 6.f, 0.5f);
}

TEST(Stereo, TheWideWindowMatchesFlatPixelsWhoseRowReachesTexture) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  const test::StereoPair s = flat_pair_with_a_textured_band(seed);
  const StereoResult r = match_12(s, 40);  // 81 x 9: from x = 20 and x = 100 it reaches into the band
  // The square 9x9 window alone rejects these pixels (the test above); the wide one matches them.
  for (int x : {12, 20, 30, 44, 78, 90, 100})
    for (int y : {0, 5, 20, 39}) {
      SCOPED_TRACE(std::to_string(x) + "," + std::to_string(y));
      ASSERT_NE(r.raw.at(x, y), kNoDisparity);
      EXPECT_NEAR(r.raw.at(x, y), 6.f, 0.5f);
    }
  // Out of its reach the flat pixels stay rejected (ties are never unique).
  const StereoResult q = match_12(s, 8);
  EXPECT_EQ(q.raw.at(20, 20), kNoDisparity);
  EXPECT_EQ(q.raw.at(100, 20), kNoDisparity);
  // The textured band keeps the square window's match either way.
  EXPECT_EQ(q.raw.at(60, 20), r.raw.at(60, 20));
}

TEST(Stereo, KittiEncodingScalesBy256AndKeepsZeroForMissing) {
  EXPECT_EQ(kitti_disparity(kNoDisparity), 0);
  EXPECT_EQ(kitti_disparity(0.f), 1);  // a kept zero disparity is not "missing"
  EXPECT_EQ(kitti_disparity(1.5f), 384);
  EXPECT_EQ(kitti_disparity(300.f), 65535);
  EXPECT_EQ(kitti_disparity(std::nanf("")), 0);
}

TEST(Stereo, RefusesPairsOfDifferentSizesAndBadParameters) {
  StereoParams p;
  EXPECT_THROW(stereo_match(ImageRGBA8(8, 8), ImageRGBA8(9, 8), p), Error);
  p.disparities = 0;
  EXPECT_THROW(stereo_match(ImageRGBA8(8, 8), ImageRGBA8(8, 8), p), Error);
  p.disparities = 8;
  p.window_radius = kMaxStereoWindowRadius + 1;
  EXPECT_THROW(validate(p), Error);
  // The wide window's sums must fit in 16 bits: 113 x 31 x 62 do not, 33 x 31 x 62 do.
  p.window_radius = kMaxStereoWindowRadius;
  p.wide_radius = 56;
  EXPECT_THROW(validate(p), Error);
  p.wide_radius = 16;
  EXPECT_NO_THROW(validate(p));
  p.wide_radius = -1;
  EXPECT_THROW(validate(p), Error);
}

TEST(Stereo, OnePixelAndOneRowImagesRun) {
  StereoParams p;
  p.disparities = 4;
  const StereoResult a = stereo_match(test::random_image(1, 1, 1), test::random_image(1, 1, 2), p);
  EXPECT_EQ(a.disparity.data.size(), 1u);
  const StereoResult b = stereo_match(test::random_image(23, 1, 3), test::random_image(23, 1, 4), p);
  EXPECT_EQ(b.disparity.data.size(), 23u);
}

}  // namespace
}  // namespace satlab
