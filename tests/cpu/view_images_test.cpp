// The raw-depth view's scale (app/gui/view_images.hpp): the raw depth on the colour scale of the depth the
// pipeline was given, so that the two halves of "raw | refined side by side" agree on what a colour means.
#include <gtest/gtest.h>

#if __has_include(<glad/egl.h>)  // built with the front end
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/view_images.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"

namespace {

using satlab::Error;
using satlab::ImageF;
using satlab::gui::depth_on_scale_of;

ImageF random_depth(int w, int h, float lo, float hi, uint32_t seed) {
  ImageF d(w, h);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (float& v : d.data) v = u(rng);
  return d;
}

// The refined depth itself on its own scale is what the depth view shows: bit for bit normalise_depth.
TEST(DepthOnScaleOf, TheScaleItselfMapsExactlyAsTheDepthViewShowsIt) {
  const uint32_t seed = satlab::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {1, 13}, {13, 1}, {31, 17}}) {
    const ImageF scale = random_depth(w, h, 0.3f, 0.6f, seed);
    const ImageF on = depth_on_scale_of(scale, scale), want = satlab::normalise_depth(scale);
    ASSERT_EQ(on.data.size(), want.data.size());
    for (size_t i = 0; i < want.data.size(); ++i)
      EXPECT_EQ(on.data[i], want.data[i]) << w << "x" << h << " at " << i;
  }
}

// A raw map of another range than the refined one: equal depth, equal value; beyond the range, 0 or 1.
TEST(DepthOnScaleOf, EqualDepthGetsTheRefinedDepthsValueAndTheRestClamps) {
  ImageF scale(3, 2);  // the refined depth: 0.25 .. 0.75
  scale.data = {0.25f, 0.5f, 0.75f, 0.25f, 0.5f, 0.75f};
  ImageF raw(5, 1);  // another size: the mapping needs only the scale's min and max
  raw.data = {0.1f, 0.25f, 0.5f, 0.75f, 0.9f};
  const ImageF on = depth_on_scale_of(raw, scale);
  ASSERT_EQ(on.width, 5);
  ASSERT_EQ(on.height, 1);
  EXPECT_EQ(on.data[0], 0.f);  // nearer than the refined depth's nearest: clamps
  EXPECT_EQ(on.data[1], 0.f);
  EXPECT_EQ(on.data[2], 0.5f);
  EXPECT_EQ(on.data[3], 1.f);
  EXPECT_EQ(on.data[4], 1.f);  // farther than its farthest: clamps
}

TEST(DepthOnScaleOf, AFlatScaleGivesZerosAsTheDepthViewDoes) {
  const ImageF scale(7, 3);  // all 0
  ImageF raw = random_depth(7, 3, 0.f, 1.f, 7);
  for (float v : depth_on_scale_of(raw, scale).data) EXPECT_EQ(v, 0.f);
  for (float v : satlab::normalise_depth(scale).data) EXPECT_EQ(v, 0.f);
}

TEST(DepthOnScaleOf, AHoleStaysAHole) {
  ImageF scale(2, 1);
  scale.data = {0.f, 1.f};
  ImageF raw(3, 1);
  raw.data = {std::numeric_limits<float>::quiet_NaN(), 0.5f, 2.f};
  const ImageF on = depth_on_scale_of(raw, scale);
  EXPECT_TRUE(std::isnan(on.data[0]));
  EXPECT_EQ(on.data[1], 0.5f);
  EXPECT_EQ(on.data[2], 1.f);
}

TEST(DepthOnScaleOf, RefusesAnEmptyScaleAndColourDepth) {
  EXPECT_THROW(depth_on_scale_of(ImageF(4, 4), ImageF()), Error);
  EXPECT_THROW(depth_on_scale_of(ImageF(4, 4, 3), ImageF(4, 4)), Error);
  EXPECT_THROW(depth_on_scale_of(ImageF(4, 4), ImageF(4, 4, 2)), Error);
}

}  // namespace
#else
TEST(DepthOnScaleOf, TheScaleItselfMapsExactlyAsTheDepthViewShowsIt) {
  GTEST_SKIP() << "built without the front end (SATLAB_WITH_GUI=OFF)";
}
#endif
