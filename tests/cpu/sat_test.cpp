#include <gtest/gtest.h>

#include <random>

#include "core/reference.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

uint64_t brute_box(const ImageRGBA8& img, int c, int x0, int y0, int x1, int y1) {
  uint64_t s = 0;
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) s += img.px(x, y)[c];
  return s;
}

void expect_sat_exact(int w, int h, int threads) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("size " + std::to_string(w) + "x" + std::to_string(h) + " seed " + std::to_string(seed));
  ImageRGBA8 img = test::random_image(w, h, seed);
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat, threads);
  ASSERT_EQ(sat.size(), img.pixels() * 4);
  // Every prefix against a running brute-force sum (exact for these sizes).
  std::vector<uint64_t> col(size_t(w) * 4, 0);
  for (int y = 0; y < h; ++y) {
    uint64_t row[4] = {0, 0, 0, 0};
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 4; ++c) {
        row[c] += img.px(x, y)[c];
        col[size_t(x) * 4 + size_t(c)] += row[c];
        ASSERT_EQ(sat[(size_t(y) * size_t(w) + size_t(x)) * 4 + size_t(c)],
                  uint32_t(col[size_t(x) * 4 + size_t(c)]))
            << "at " << x << "," << y << " channel " << c;
      }
  }
}

}  // namespace

TEST(Sat, ExactOnOnePixel) {
  expect_sat_exact(1, 1, 0);
}
TEST(Sat, ExactOnOneRow) {
  expect_sat_exact(1013, 1, 0);
}
TEST(Sat, ExactOnOneColumn) {
  expect_sat_exact(1, 997, 0);
}
TEST(Sat, ExactOnPrimeSizes) {
  expect_sat_exact(37, 53, 0);
  expect_sat_exact(257, 131, 0);
}
TEST(Sat, SameResultForAnyThreadCount) {
  for (int t : {1, 2, 3, 7, 64}) expect_sat_exact(61, 29, t);
}

TEST(Sat, WrapAroundKeepsBoxSumsExactOn8192SquareOfWhite) {
  const int n = 8192;
  ImageRGBA8 img(n, n);
  std::fill(img.data.begin(), img.data.end(), uint8_t(255));
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat, 3);  // three uneven bands: the carries between them wrap around too
  // The whole image sums to 255 * 2^26, far past 2^32: the stored corner has wrapped around...
  EXPECT_EQ(sat.back(), uint32_t(uint64_t(255) * n * n));
  EXPECT_NE(uint64_t(sat.back()), uint64_t(255) * n * n);
  // ...yet every box whose true sum fits in 32 bits comes back exact from four wrapped taps.
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int i = 0; i < 2000; ++i) {
    int bw = 1 + int(rng() % 4095), bh = 1 + int(rng() % 4095);
    int x0 = int(rng() % uint32_t(n - bw + 1)), y0 = int(rng() % uint32_t(n - bh + 1));
    int c = int(rng() % 4);
    uint32_t s = box_sum(sat.data(), n, 4, c, x0, y0, x0 + bw - 1, y0 + bh - 1);
    ASSERT_EQ(uint64_t(s), uint64_t(255) * uint64_t(bw) * uint64_t(bh))
        << "box " << x0 << "," << y0 << " " << bw << "x" << bh;
  }
  // The whole image through four taps is its 64-bit sum modulo 2^32, like every wrapped value.
  EXPECT_EQ(box_sum(sat.data(), n, 4, 1, 0, 0, n - 1, n - 1), uint32_t(uint64_t(255) * n * n));
  // Boxes touching the far corner (largest wrapped taps).
  EXPECT_EQ(box_sum(sat.data(), n, 4, 3, n - 4095, n - 4095, n - 1, n - 1), 255u * 4095u * 4095u);
}

TEST(Sat, BoxSumsMatchBruteForceOnRandomImage) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  ImageRGBA8 img = test::random_image(211, 97, seed);
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  std::mt19937 rng(seed ^ 0x9e3779b9u);
  for (int i = 0; i < 500; ++i) {
    int x0 = int(rng() % 211), x1 = x0 + int(rng() % uint32_t(211 - x0));
    int y0 = int(rng() % 97), y1 = y0 + int(rng() % uint32_t(97 - y0));
    int c = int(rng() % 4);
    ASSERT_EQ(uint64_t(box_sum(sat.data(), 211, 4, c, x0, y0, x1, y1)), brute_box(img, c, x0, y0, x1, y1));
  }
}

TEST(Sat, SingleChannelMatchesRgbaChannel) {
  ImageRGBA8 img = test::random_image(53, 41, test::fresh_seed());
  std::vector<uint8_t> g(img.pixels());
  for (size_t i = 0; i < g.size(); ++i) g[i] = img.data[i * 4 + 2];
  std::vector<uint32_t> s1, s4;
  sat_u8(g.data(), 53, 41, s1);
  sat_rgba8(img, s4);
  for (size_t i = 0; i < s1.size(); ++i) ASSERT_EQ(s1[i], s4[i * 4 + 2]) << i;
}

TEST(Sat, FloatSatInDoubleMatchesBruteForce) {
  ImageF img(33, 17, 2);
  std::mt19937 rng(test::fresh_seed());
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& v : img.data) v = u(rng);
  std::vector<double> sat;
  sat_float(img, sat, 3);
  for (int y = 0; y < 17; ++y)
    for (int x = 0; x < 33; ++x)
      for (int c = 0; c < 2; ++c) {
        double s = 0;
        for (int yy = 0; yy <= y; ++yy)
          for (int xx = 0; xx <= x; ++xx) s += double(img.at(xx, yy, c));
        ASSERT_NEAR(sat[(size_t(y) * 33 + size_t(x)) * 2 + size_t(c)], s, 1e-9);
      }
}

// sat_u16 (the reference of the GPU's RGBA16 tables): every prefix against a running uint64 sum, reduced
// mod 2^32, on random 16-bit values at odd sizes and on all-0xFFFF (sums far past 2^32: wrap-around).
TEST(Sat, U16MatchesBruteForceModulo2To32AtOddSizesAndAll0xFFFF) {
  std::mt19937 rng(test::fresh_seed());
  struct S {
    int w, h;
  };
  for (const bool white : {false, true})
    for (const S s : {S{1, 1}, S{1, 97}, S{211, 1}, S{37, 53}, S{300, 257}}) {
      SCOPED_TRACE(std::to_string(s.w) + "x" + std::to_string(s.h) + (white ? " all-0xFFFF" : ""));
      std::vector<uint16_t> in(size_t(s.w) * size_t(s.h) * 4, 0xFFFF);
      if (!white)
        for (auto& e : in) e = uint16_t(rng());
      std::vector<uint32_t> sat;
      sat_u16(in.data(), s.w, s.h, 4, sat, 3);
      ASSERT_EQ(sat.size(), in.size());
      std::vector<uint64_t> col(size_t(s.w) * 4, 0);
      for (int y = 0; y < s.h; ++y) {
        uint64_t row[4] = {0, 0, 0, 0};
        for (int x = 0; x < s.w; ++x)
          for (int c = 0; c < 4; ++c) {
            const size_t i = (size_t(y) * size_t(s.w) + size_t(x)) * 4 + size_t(c);
            row[c] += in[i];
            col[size_t(x) * 4 + size_t(c)] += row[c];
            ASSERT_EQ(sat[i], uint32_t(col[size_t(x) * 4 + size_t(c)]))
                << "at " << x << "," << y << " channel " << c;
          }
      }
    }
}
