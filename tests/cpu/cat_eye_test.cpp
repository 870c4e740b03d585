// Cat-eye bokeh (Params::cat_eye; core/dof_spread_pixel.hpp, cat_eye_bin; core/dof_spread.cpp): a point's bin
// from its tile's place in the frame, the bins' apertures (the plain one at the centre, narrowing along the
// radius and not across it toward the edges, turned in front of the focus plane), the pixel's own splat
// covering it, the spread's weight budget, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "core/params.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

// Width and height of bin `bin`'s aperture of radius r, and whether it holds the origin.
struct Extent {
  int w, h;
  bool origin;
  uint32_t pixels;
};
Extent extent_of(const SpreadApertures& a, int bin, int r) {
  const dof::Rect* q = a.rects_of(bin) + size_t(r) * dof::kMaxSpreadRects;
  const dof::SpreadInfo in = a.info_of(bin)[r];
  int x0 = 1 << 20, x1 = -(1 << 20), y0 = x0, y1 = x1;
  bool origin = false;
  uint32_t pixels = 0;
  for (int i = 0; i < in.count; ++i) {
    x0 = std::min(x0, int(q[i].x0)), x1 = std::max(x1, int(q[i].x1));
    y0 = std::min(y0, int(q[i].y0)), y1 = std::max(y1, int(q[i].y1));
    origin |= q[i].x0 <= 0 && q[i].x1 >= 0 && q[i].y0 <= 0 && q[i].y1 >= 0;
    pixels += uint32_t(q[i].x1 - q[i].x0 + 1) * uint32_t(q[i].y1 - q[i].y0 + 1);
  }
  return {x1 - x0 + 1, y1 - y0 + 1, origin, pixels};
}

}  // namespace

TEST(CatEye, ABinIsItsTilesPlaceInTheFrame) {
  const int w = 640, h = 480;
  // The centre: bin 0, in front and behind.
  EXPECT_EQ(dof::cat_eye_bin(w / 2, h / 2, w, h, false), 0);
  EXPECT_EQ(dof::cat_eye_bin(w / 2, h / 2, w, h, true), 0);
  // The right edge's middle, the bottom's (y down: a quarter turn), the left's; the farthest step at the
  // corners; half a turn in front of the focus plane.
  const int edge = 1 + (dof::kCatEyeSteps - 1) * dof::kCatEyeDirections;
  const int right = dof::cat_eye_bin(w - 1, h / 2, w, h, false);
  EXPECT_EQ((right - 1) % dof::kCatEyeDirections, 0);
  EXPECT_EQ((dof::cat_eye_bin(w / 2, h - 1, w, h, false) - 1) % dof::kCatEyeDirections, 4);
  EXPECT_EQ((dof::cat_eye_bin(0, h / 2, w, h, false) - 1) % dof::kCatEyeDirections, 8);
  EXPECT_EQ((dof::cat_eye_bin(w - 1, h / 2, w, h, true) - 1) % dof::kCatEyeDirections, 8);
  EXPECT_EQ(dof::cat_eye_bin(w - 1, h - 1, w, h, false), edge + 2);  // 45 degrees down-right
  EXPECT_EQ(dof::cat_eye_bin(0, 0, w, h, false), edge + 10);
  // A point beyond the frame takes the clamped point's bin; every pixel of a tile shares one.
  EXPECT_EQ(dof::cat_eye_bin(w + 30, -5, w, h, true), dof::cat_eye_bin(w - 1, 0, w, h, true));
  for (int y = 64; y < 96; ++y)
    for (int x = 32; x < 64; ++x) ASSERT_EQ(dof::cat_eye_bin(x, y, w, h, false), dof::cat_eye_bin(40, 70, w, h, false));
  // Odd sizes and a 1 x 1 frame.
  EXPECT_EQ(dof::cat_eye_bin(0, 0, 1, 1, false), 0);
  for (int y = -3; y < 40; ++y)
    for (int x = -3; x < 70; ++x) {
      const int b = dof::cat_eye_bin(x, y, 67, 37, y % 2 == 0);
      ASSERT_GE(b, 0);
      ASSERT_LT(b, dof::kCatEyeBins);
    }
}

TEST(CatEye, TheApertureNarrowsAlongTheRadiusAndCoversItsPixel) {
  Params p;
  p.cat_eye = 0.6f;
  const int max_r = 40;
  const SpreadApertures a = spread_apertures(p, max_r);
  ASSERT_EQ(a.bins, dof::kCatEyeBins);
  Params plain = p;
  plain.cat_eye = 0.f;
  const SpreadApertures b = spread_apertures(plain, max_r);
  ASSERT_EQ(b.bins, 1);
  // Bin 0 is the plain aperture, byte for byte.
  for (size_t i = 0; i < b.rects.size(); ++i) {
    ASSERT_EQ(a.rects[i].x0, b.rects[i].x0);
    ASSERT_EQ(a.rects[i].x1, b.rects[i].x1);
    ASSERT_EQ(a.rects[i].y0, b.rects[i].y0);
    ASSERT_EQ(a.rects[i].y1, b.rects[i].y1);
  }
  for (int r = 0; r <= max_r; ++r) ASSERT_EQ(a.info[size_t(r)].area, b.info[size_t(r)].area);
  // Toward the right edge (direction 0) and the bottom (direction 4): narrower along the radius (0.7 of it
  // for a disc cut by its copy 0.6 r away), nearly as wide across it (0.95; the bands' merging takes a
  // little more); the farther the step, the narrower.
  const int edge = 1 + (dof::kCatEyeSteps - 1) * dof::kCatEyeDirections;
  for (const int r : {8, 20, 40}) {
    const Extent plain_e = extent_of(b, 0, r), right = extent_of(a, edge, r), down = extent_of(a, edge + 4, r);
    EXPECT_LT(right.w, 0.8 * plain_e.w) << r;
    EXPECT_GE(right.h, 0.85 * plain_e.h) << r;
    EXPECT_LT(down.h, 0.8 * plain_e.h) << r;
    EXPECT_GE(down.w, 0.85 * plain_e.w) << r;
    EXPECT_LT(extent_of(a, edge, r).pixels, extent_of(a, 1 + dof::kCatEyeDirections, r).pixels) << r;
  }
  // Every bin and radius holds the pixel itself (the layer of its own splat is present there).
  for (int bin = 0; bin < a.bins; ++bin)
    for (int r = 0; r <= max_r; ++r) ASSERT_TRUE(extent_of(a, bin, r).origin) << "bin " << bin << " r " << r;
}

// The spread's budget (core/dof_spread_pixel.hpp, kSpreadOne): 1 + sum_d 8 d / (the least area of radius d
// and more, over every bin) stays below 100 at the largest amount, with and without a squeeze.
TEST(CatEye, TheSpreadsWeightBudgetHolds) {
  for (const float squeeze : {1.f, 0.5f, 4.f}) {
    Params p;
    p.cat_eye = 0.8f, p.anamorphic = squeeze;
    const int max_r = 64;
    const SpreadApertures a = spread_apertures(p, max_r);
    double sum = 1.0;
    for (int d = 1; d <= max_r; ++d) {
      uint32_t least = ~0u;
      for (int bin = 0; bin < a.bins; ++bin)
        for (int r = d; r <= max_r; ++r) least = std::min(least, extent_of(a, bin, r).pixels);
      sum += 8.0 * d / double(least);
    }
    EXPECT_LT(sum, 100.0) << "squeeze " << squeeze;
  }
}

TEST(CatEye, ParsingAndRefusals) {
  Params p;
  parse_cat_eye("0.5", p);
  EXPECT_EQ(p.cat_eye, 0.5f);
  EXPECT_EQ(p.cat_eye_scale, 1.f);
  parse_cat_eye("0.25,1.5", p);
  EXPECT_EQ(p.cat_eye, 0.25f);
  EXPECT_EQ(p.cat_eye_scale, 1.5f);
  for (const char* bad : {"", "x", "0.1,", "0.1,1,2"}) EXPECT_THROW(parse_cat_eye(bad, p), Error) << bad;
  const auto refused = [](const Params& q, const std::string& what) {
    try {
      validate(q);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  Params q;
  q.cat_eye = 0.9f;
  refused(q, "cat_eye (--cat-eye AMOUNT) must be in [0, 0.8]");
  q.cat_eye = 0.5f, q.cat_eye_scale = 2.5f;
  refused(q, "[1, 2]");
  q.cat_eye_scale = 1.f, q.dof_mode = "gather_shape";
  refused(q, "--cat-eye needs the spread dof mode");
  q.dof_mode = "spread", q.bokeh_profile = 0.5f;
  refused(q, "--cat-eye takes no --bokeh-profile");
  q.bokeh_profile = 0.f;
  EXPECT_NO_THROW(validate(q));
}

// A frame: amount 0 is the plain frame; the highlights' sprites take the bins too (their energy kept).
TEST(CatEye, AFrameWithoutItIsThePlainFrame) {
  const int w = 131, h = 77;
  const ImageRGBA8 img = test::random_image(w, h, test::fresh_seed());
  ImageF depth(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) depth.at(x, y) = float((x * 5 + y * 11) % 40) / 39.f;
  Params p;
  p.aperture = 40.f, p.max_radius = 12.f, p.focus = 0.5f, p.highlights = true, p.highlight_threshold = 0.5f;
  const auto plain = test::ran_cpu_pipeline(img, depth, p);
  p.cat_eye = 0.7f;
  const auto eye = test::ran_cpu_pipeline(img, depth, p);
  EXPECT_NE(eye->result().data, plain->result().data);
  p.cat_eye = 0.f, p.cat_eye_scale = 1.7f;  // the stop's size alone changes nothing
  EXPECT_EQ(test::ran_cpu_pipeline(img, depth, p)->result().data, plain->result().data);
}
