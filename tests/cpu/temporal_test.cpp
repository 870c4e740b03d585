// The temporal depth filter (core/temporal.hpp): on a still scene with noisy depth it cuts the frame-to-
// frame change of the depth's error at least 3x (a filter that does nothing fails); a depth edge that
// moves with its object is taken at once (no trail); exact, unchanging depth passes unchanged.
#include "core/temporal.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace satlab {
namespace {

// A frame: a bright square (near, depth 0.2) at x0 over a dark background (far, 0.8), 61 x 47.
void scene(int x0, ImageRGBA8& img, ImageF& depth) {
  img = ImageRGBA8(61, 47);
  depth = ImageF(61, 47, 1);
  for (int y = 0; y < 47; ++y)
    for (int x = 0; x < 61; ++x) {
      const bool in = x >= x0 && x < x0 + 15 && y >= 10 && y < 30;
      uint8_t* p = img.px(x, y);
      p[0] = p[1] = p[2] = in ? 220 : 40, p[3] = 255;
      depth.at(x, y) = in ? 0.2f : 0.8f;
    }
}

TEST(Temporal, NoiseOnAStillSceneFlickersThreeTimesLess) {
  std::mt19937 rng(45);
  std::normal_distribution<float> noise(0.f, 0.01f);  // phone_noisy's 1% of the range
  ImageRGBA8 img;
  ImageF exact;
  scene(20, img, exact);
  TemporalFilter f;
  std::vector<float> prev_raw, prev_out;
  double flicker_raw = 0, flicker_out = 0;
  for (int t = 0; t < 30; ++t) {
    ImageF d = exact;
    for (float& v : d.data) v += noise(rng);
    const ImageF raw = d;
    f.apply(d, img, 1);
    if (t >= 10) {  // past the filter's start
      for (size_t i = 0; i < d.data.size(); ++i) {
        flicker_raw += std::fabs((raw.data[i] - exact.data[i]) - (prev_raw[i] - exact.data[i]));
        flicker_out += std::fabs((d.data[i] - exact.data[i]) - (prev_out[i] - exact.data[i]));
      }
    }
    prev_raw = raw.data, prev_out = d.data;
  }
  EXPECT_LT(flicker_out * 3, flicker_raw) << flicker_out << " against " << flicker_raw;
}

TEST(Temporal, AMovingObjectsDepthIsTakenAtOnce) {
  ImageRGBA8 img;
  ImageF depth;
  TemporalFilter f;
  for (int x0 = 5; x0 <= 35; x0 += 3) {
    scene(x0, img, depth);
    ImageF exact = depth;
    f.apply(depth, img, 1);
    size_t off = 0;
    for (size_t i = 0; i < depth.data.size(); ++i) off += std::fabs(depth.data[i] - exact.data[i]) > 1e-3f;
    EXPECT_EQ(off, 0u) << "square at " << x0 << ": " << off << " pixels dragged";
  }
}

TEST(Temporal, ExactStillDepthPassesUnchangedAndASizeChangeStartsOver) {
  ImageRGBA8 img;
  ImageF depth;
  scene(12, img, depth);
  const ImageF exact = depth;
  TemporalFilter f;
  for (int t = 0; t < 4; ++t) {
    ImageF d = exact;
    f.apply(d, img, 2);
    EXPECT_EQ(d.data, exact.data) << t;
  }
  ImageRGBA8 small(9, 7);
  ImageF sd(9, 7, 1);
  for (float& v : sd.data) v = 0.5f;
  f.apply(sd, small);
  for (float v : sd.data) EXPECT_EQ(v, 0.5f);
  ImageF bad(9, 8, 1);
  EXPECT_ANY_THROW(f.apply(bad, small));
}

}  // namespace
}  // namespace satlab
