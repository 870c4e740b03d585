#include "core/synthetic_depth.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/tiled.hpp"

using satlab::Error;
using satlab::SyntheticDepth;
using Mode = satlab::SyntheticDepth::Mode;

namespace {

// The message of the satlab::Error that f throws, or a failure.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no satlab::Error thrown";
  return "";
}

}  // namespace

TEST(SyntheticDepth, GradientAt90DegreesIsNearAtTheBottomAndFarAtTheTop) {
  SyntheticDepth s;  // gradient, angle 90, pos 0.5, width 1: one ramp over the whole height
  const satlab::ImageF d = satlab::make_synthetic_depth(s, 7, 101);
  ASSERT_EQ(d.width, 7);
  ASSERT_EQ(d.height, 101);
  for (int x = 0; x < 7; ++x) {
    EXPECT_NEAR(d.at(x, 0), 1.f - 0.5f / 101, 1e-5);                      // top row: far
    EXPECT_NEAR(d.at(x, 100), 0.5f / 101, 1e-5);                          // bottom row: near
    EXPECT_NEAR(d.at(x, 50), 0.5f, 1e-5);                                 // the middle row: half way
    for (int y = 1; y < 101; ++y) EXPECT_LT(d.at(x, y), d.at(x, y - 1));  // strictly monotonic
  }
}

TEST(SyntheticDepth, GradientAt0DegreesGrowsToTheRightAndIsConstantDownColumns) {
  SyntheticDepth s;
  s.angle = 0;
  const satlab::ImageF d = satlab::make_synthetic_depth(s, 64, 9);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 64; ++x) {
      EXPECT_FLOAT_EQ(d.at(x, y), d.at(x, 0));
      if (x) {
        EXPECT_GT(d.at(x, y), d.at(x - 1, y));
      }
    }
}

TEST(SyntheticDepth, NarrowGradientClampsOutsideItsBandAroundThePosition) {
  SyntheticDepth s;
  s.angle = 0;
  s.position = 0.25f;
  s.width = 0.1f;  // ramp over x in [0.2, 0.3] of the width
  const satlab::ImageF d = satlab::make_synthetic_depth(s, 1000, 3);
  EXPECT_EQ(d.at(0, 1), 0.f);
  EXPECT_EQ(d.at(150, 1), 0.f);
  EXPECT_NEAR(d.at(250, 1), 0.5f, 0.01f);
  EXPECT_EQ(d.at(350, 1), 1.f);
  EXPECT_EQ(d.at(999, 1), 1.f);
}

TEST(SyntheticDepth, RadialIsZeroAtTheCentreAndOneFromTheRadiusOn) {
  SyntheticDepth s;
  s.mode = Mode::Radial;
  s.centre_x = 0.25f;
  s.centre_y = 0.5f;
  s.radius = 0.25f;  // of the shorter side (100): 25 pixels
  const satlab::ImageF d = satlab::make_synthetic_depth(s, 201, 100);
  EXPECT_NEAR(d.at(50, 50), 0.f, 0.03f);
  EXPECT_NEAR(d.at(50 + 12, 50), 0.5f, 0.03f);
  EXPECT_EQ(d.at(50 + 30, 50), 1.f);
  EXPECT_EQ(d.at(200, 0), 1.f);
  for (int y = 0; y < 100; ++y)
    for (int x = 0; x < 201; ++x) {
      ASSERT_GE(d.at(x, y), 0.f);
      ASSERT_LE(d.at(x, y), 1.f);
    }
}

TEST(SyntheticDepth, NoneGivesNoDepthMap) {
  SyntheticDepth s;
  s.mode = Mode::None;
  EXPECT_TRUE(satlab::make_synthetic_depth(s, 10, 10).empty());
}

TEST(SyntheticDepth, SpecsParseAndRoundTrip) {
  const SyntheticDepth g = satlab::parse_synthetic_depth("gradient:angle=45,pos=0.3,width=0.5");
  EXPECT_EQ(g.mode, Mode::Gradient);
  EXPECT_FLOAT_EQ(g.angle, 45.f);
  EXPECT_FLOAT_EQ(g.position, 0.3f);
  EXPECT_FLOAT_EQ(g.width, 0.5f);
  const SyntheticDepth r = satlab::parse_synthetic_depth("radial:radius=0.7");
  EXPECT_EQ(r.mode, Mode::Radial);
  EXPECT_FLOAT_EQ(r.radius, 0.7f);
  EXPECT_FLOAT_EQ(r.centre_x, 0.5f);  // unspecified keys keep their defaults
  EXPECT_EQ(satlab::parse_synthetic_depth("none").mode, Mode::None);
  EXPECT_EQ(satlab::parse_synthetic_depth("gradient").mode, Mode::Gradient);
  for (const SyntheticDepth& s : {g, r, satlab::parse_synthetic_depth("none")}) {
    const SyntheticDepth back = satlab::parse_synthetic_depth(satlab::to_spec(s));
    EXPECT_EQ(back.mode, s.mode);
    EXPECT_EQ(back.angle, s.angle);
    EXPECT_EQ(back.position, s.position);
    EXPECT_EQ(back.width, s.width);
    EXPECT_EQ(back.centre_x, s.centre_x);
    EXPECT_EQ(back.centre_y, s.centre_y);
    EXPECT_EQ(back.radius, s.radius);
  }
}

TEST(SyntheticDepth, BadSpecsNameTheKeyOrValue) {
  const struct {
    const char* spec;
    const char* named;  // what the message must contain
  } cases[] = {{"spiral", "spiral"},
               {"gradient:tilt=3", "tilt"},
               {"radial:angle=3", "angle"},
               {"gradient:pos=abc", "pos"},
               {"gradient:pos=1.5", "pos"},
               {"gradient:width=0", "width"},
               {"radial:radius=-1", "radius"},
               {"gradient:pos", "key=value"},
               {"gradient:angle=nan", "angle"},
               {"none:x=1", "none"}};
  for (const auto& c : cases) {
    const std::string msg = error_of([&] { satlab::parse_synthetic_depth(c.spec); });
    EXPECT_NE(msg.find(c.named), std::string::npos) << c.spec << ": " << msg;
  }
}

// A streamed image takes its synthetic depth band by band (app/cli/render_stream.cpp): every band equals
// the same rows of the whole map bit for bit, whatever the band's height, for every mode and orientation.
TEST(SyntheticDepth, BandsEqualTheWholeMapBitForBit) {
  const char* specs[] = {"gradient", "gradient:angle=30,pos=0.3,width=0.2", "gradient:angle=-135",
                         "radial:x=0.2,y=0.9,radius=0.3", "radial"};
  for (const char* spec : specs) {
    const SyntheticDepth s = satlab::parse_synthetic_depth(spec);
    for (const auto& [w, h] : {std::pair<int, int>{97, 61}, {1, 29}, {31, 1}, {256, 255}}) {
      SCOPED_TRACE(std::string(spec) + " " + std::to_string(w) + "x" + std::to_string(h));
      const satlab::ImageF whole = satlab::make_synthetic_depth(s, w, h);
      for (int band : {1, 7, 64}) {
        std::vector<float> rows(size_t(w + 3) * size_t(band), -1.f);  // a stride wider than the row
        for (int y0 = 0; y0 < h; y0 += band) {
          const int y1 = std::min(h, y0 + band);
          satlab::synthetic_depth_rows(s, w, h, y0, y1, rows.data(), size_t(w + 3));
          for (int y = y0; y < y1; ++y)
            ASSERT_EQ(0, std::memcmp(&rows[size_t(y - y0) * size_t(w + 3)],
                                     &whole.data[size_t(y) * size_t(w)], size_t(w) * sizeof(float)))
                << "row " << y << " of a band of " << band;
        }
      }
    }
  }
  std::vector<float> untouched(4, 7.f);
  satlab::synthetic_depth_rows(satlab::parse_synthetic_depth("none"), 2, 2, 0, 2, untouched.data(), 2);
  EXPECT_EQ(untouched, std::vector<float>(4, 7.f));  // Mode::None writes nothing
}

// synthetic_frame_stats: the range and every histogram count equal those of the statistics passes over the
// map's rows (depth_frame_stats, which makes the map), for gradients at many angles (clamped ramps
// included), radial maps with the centre inside, on an edge and at a corner, and odd sizes; and a tiled
// source that knows them is not read for them.
TEST(SyntheticDepth, FrameStatsFromTheFormulaEqualThePassesOverTheMap) {
  const char* specs[] = {"gradient",
                         "gradient:angle=0",
                         "gradient:angle=180,pos=0.2,width=0.05",
                         "gradient:angle=30,pos=0.3,width=0.2",
                         "gradient:angle=-135",
                         "gradient:angle=45,pos=1,width=10",
                         "gradient:angle=271,pos=0.6,width=0.5",
                         "radial",
                         "radial:x=0.2,y=0.9,radius=0.3",
                         "radial:x=0,y=0,radius=2",
                         "radial:x=1,y=0.5,radius=0.01",
                         "radial:x=0.5,y=0.5,radius=10"};
  for (const char* spec : specs) {
    const SyntheticDepth s = satlab::parse_synthetic_depth(spec);
    for (const auto& [w, h] :
         {std::pair<int, int>{1, 1}, {97, 61}, {1, 29}, {31, 1}, {256, 255}, {1031, 17}}) {
      SCOPED_TRACE(std::string(spec) + " " + std::to_string(w) + "x" + std::to_string(h));
      satlab::DepthRowSource src{uint32_t(w), uint32_t(h),
                                 [&](uint32_t y0, uint32_t y1, float* d, size_t stride) {
                                   satlab::synthetic_depth_rows(s, w, h, int(y0), int(y1), d, stride);
                                 },
                                 {}};
      const satlab::FrameStats passes = satlab::depth_frame_stats(src, 13);
      const satlab::FrameStats formula = satlab::synthetic_frame_stats(s, w, h, 3);
      ASSERT_TRUE(formula.valid && formula.has_depth);
      EXPECT_EQ(formula.depth_min, passes.depth_min);
      EXPECT_EQ(formula.depth_max, passes.depth_max);
      ASSERT_EQ(formula.histogram.count, passes.histogram.count);
      // Known to the source: no row is read for them.
      int reads = 0;
      src.read = [&](uint32_t, uint32_t, float*, size_t) { ++reads; };
      src.known_stats = [&] { return formula; };
      const satlab::FrameStats known = satlab::depth_frame_stats(src, 13);
      EXPECT_EQ(reads, 0);
      EXPECT_EQ(known.depth_min, passes.depth_min);
      EXPECT_EQ(known.histogram.count, passes.histogram.count);
    }
  }
  EXPECT_FALSE(satlab::synthetic_frame_stats(satlab::parse_synthetic_depth("none"), 8, 8).valid);
}
