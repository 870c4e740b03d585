// RGBA8 to Y'CbCr 4:2:0 (core/yuv.hpp): BT.709 in limited range within half a level of the exact formula
// on every pixel and chroma block of random images of odd sizes; black, white and the primaries at their
// known codes; chroma blocks at an odd edge take the pixels there are.
#include "core/yuv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace satlab {
namespace {

double y709(double r, double g, double b) { return 16 + 219.0 / 255 * (0.2126 * r + 0.7152 * g + 0.0722 * b); }
double cb709(double r, double g, double b) { return 128 + 224.0 / 255 * (b - (0.2126 * r + 0.7152 * g + 0.0722 * b)) / 1.8556; }
double cr709(double r, double g, double b) { return 128 + 224.0 / 255 * (r - (0.2126 * r + 0.7152 * g + 0.0722 * b)) / 1.5748; }

TEST(Yuv420, MatchesBt709LimitedRangeOnOddSizes) {
  std::mt19937 rng(709);
  for (auto [w, h] : {std::pair{1, 1}, {1, 9}, {9, 1}, {2, 2}, {7, 5}, {64, 33}}) {
    ImageRGBA8 img(w, h);
    for (auto& b : img.data) b = uint8_t(rng());
    Yuv420 out;
    rgba_to_yuv420(img, out, 2);
    ASSERT_EQ(out.u.size(), size_t((w + 1) / 2) * size_t((h + 1) / 2));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const uint8_t* p = img.px(x, y);
        EXPECT_LE(std::abs(out.y[size_t(y) * w + x] - y709(p[0], p[1], p[2])), 0.5 + 1e-9) << w << "x" << h << " " << x << "," << y;
      }
    for (int cy = 0; cy < out.chroma_height(); ++cy)
      for (int cx = 0; cx < out.chroma_width(); ++cx) {
        double r = 0, g = 0, b = 0, n = 0;
        for (int y = 2 * cy; y < std::min(h, 2 * cy + 2); ++y)
          for (int x = 2 * cx; x < std::min(w, 2 * cx + 2); ++x) r += img.px(x, y)[0], g += img.px(x, y)[1], b += img.px(x, y)[2], ++n;
        const size_t i = size_t(cy) * out.chroma_width() + cx;
        EXPECT_LE(std::abs(out.u[i] - cb709(r / n, g / n, b / n)), 0.5 + 1e-9) << w << "x" << h;
        EXPECT_LE(std::abs(out.v[i] - cr709(r / n, g / n, b / n)), 0.5 + 1e-9) << w << "x" << h;
      }
  }
}

TEST(Yuv420, BlackWhiteAndPrimariesHaveTheirCodes) {
  auto one = [](uint8_t r, uint8_t g, uint8_t b) {
    ImageRGBA8 img(2, 2);
    for (int i = 0; i < 4; ++i) img.data[size_t(i) * 4] = r, img.data[size_t(i) * 4 + 1] = g, img.data[size_t(i) * 4 + 2] = b;
    Yuv420 o;
    rgba_to_yuv420(img, o);
    return std::array<int, 3>{o.y[0], o.u[0], o.v[0]};
  };
  EXPECT_EQ(one(0, 0, 0), (std::array<int, 3>{16, 128, 128}));
  EXPECT_EQ(one(255, 255, 255), (std::array<int, 3>{235, 128, 128}));
  EXPECT_EQ(one(255, 0, 0), (std::array<int, 3>{63, 102, 240}));
  EXPECT_EQ(one(0, 0, 255), (std::array<int, 3>{32, 240, 118}));
}

}  // namespace
}  // namespace satlab
