// RGBA8 to Y'CbCr 4:2:0 (core/yuv.hpp): BT.709 in limited range within half a level of the exact formula
// on every pixel and chroma block of random images of odd sizes; black, white and the primaries at their
// known codes; chroma blocks at an odd edge take the pixels there are. And back (yuv420sp_to_rgba, the
// conversion of frames decoded on the GPU): within a level of the exact matrix for every matrix, range and
// bit depth; black and white at their codes; a frame made by rgba_to_yuv420 back within a few levels;
// turned frames equal the turned conversion.
#include "core/yuv.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <vector>

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

// Semi-planar planes (NV12 or 16-bit) of random samples at `bits`, in the high bits for 2 bytes.
struct Planes {
  std::vector<uint8_t> y, uv;
  Yuv420SP view;
};
Planes random_planes(int w, int h, int bytes, int bits, std::mt19937& rng) {
  Planes p;
  p.view.width = w, p.view.height = h, p.view.bytes = bytes, p.view.shift = bytes == 2 ? 16 - bits : 0;
  const int cw = p.view.chroma_width(), ch = p.view.chroma_height();
  p.view.y_pitch = size_t(w) * bytes + 3 * bytes, p.view.uv_pitch = size_t(cw) * 2 * bytes + bytes;
  p.y.resize(p.view.y_pitch * h), p.uv.resize(p.view.uv_pitch * ch);
  auto fill = [&](std::vector<uint8_t>& v) {
    if (bytes == 1) {
      for (auto& b : v) b = uint8_t(rng());
    } else {
      for (size_t i = 0; i + 1 < v.size(); i += 2) {
        const uint16_t s = uint16_t((rng() % (1u << bits)) << (16 - bits));
        v[i] = uint8_t(s & 0xFF), v[i + 1] = uint8_t(s >> 8);
      }
    }
  };
  fill(p.y), fill(p.uv);
  p.view.y = p.y.data(), p.view.uv = p.uv.data();
  return p;
}
int sample_at(const Planes& p, bool chroma, int i, int j, int bits) {
  const uint8_t* row = (chroma ? p.uv.data() + size_t(j) * p.view.uv_pitch : p.y.data() + size_t(j) * p.view.y_pitch);
  if (p.view.bytes == 1) return row[i];
  return (row[2 * i] | row[2 * i + 1] << 8) >> (16 - bits);
}

TEST(YuvIn, WithinALevelOfTheMatrixForEveryMatrixRangeAndDepth) {
  std::mt19937 rng(601);
  struct M {
    yuv::Matrix m;
    double kr, kb;
  };
  for (const M& m : {M{yuv::Matrix::Bt601, 0.299, 0.114}, M{yuv::Matrix::Bt709, 0.2126, 0.0722}, M{yuv::Matrix::Bt2020, 0.2627, 0.0593}})
    for (bool full : {false, true})
      for (auto [bytes, bits] : {std::pair{1, 8}, {2, 10}, {2, 12}, {2, 16}}) {
        const int w = 9, h = 7;
        Planes p = random_planes(w, h, bytes, bits, rng);
        const yuv::InCoeffs k = yuv::in_coeffs(m.m, full, bits);
        ImageRGBA8 out;
        yuv420sp_to_rgba(p.view, k, 0, out, 1);
        ASSERT_EQ(out.width, w);
        const double up = double(1 << (bits - 8)), max = double((1 << bits) - 1);
        const double yo = full ? 0 : 16 * up, yr = full ? max : 219 * up, co = double(1 << (bits - 1)), cr = full ? max : 224 * up;
        const double kg = 1 - m.kr - m.kb;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            // Chroma at the luma sample's own position, bilinear, sited as the view says (left: the
            // even columns, between the rows).
            const double cxp = x / 2.0, cyp = (y - 0.5) / 2.0;
            const int cw = p.view.chroma_width(), ch = p.view.chroma_height();
            const int i0 = int(std::floor(cxp)), j0 = int(std::floor(cyp));
            const double fx = cxp - i0, fy = cyp - j0;
            auto at = [&](int q, int i, int j) {
              return double(sample_at(p, true, 2 * std::clamp(i, 0, cw - 1) + q, std::clamp(j, 0, ch - 1), bits));
            };
            double c[2];
            for (int q = 0; q < 2; ++q)
              c[q] = (1 - fy) * ((1 - fx) * at(q, i0, j0) + fx * at(q, i0 + 1, j0)) + fy * ((1 - fx) * at(q, i0, j0 + 1) + fx * at(q, i0 + 1, j0 + 1));
            const double Y = (sample_at(p, false, x, y, bits) - yo) / yr, u = (c[0] - co) / cr, v = (c[1] - co) / cr;
            const double want[3] = {Y + 2 * (1 - m.kr) * v, Y - 2 * m.kb * (1 - m.kb) / kg * u - 2 * m.kr * (1 - m.kr) / kg * v,
                                    Y + 2 * (1 - m.kb) * u};
            for (int q = 0; q < 3; ++q)
              EXPECT_LE(std::abs(out.px(x, y)[q] - std::clamp(255 * want[q], 0.0, 255.0)), 1.0)
                  << int(m.m) << " full " << full << " bits " << bits << " at " << x << "," << y << " channel " << q;
            EXPECT_EQ(out.px(x, y)[3], 255);
          }
      }
}

TEST(YuvIn, BlackAndWhiteAtTheirCodes) {
  for (auto [bytes, bits] : {std::pair{1, 8}, {2, 10}}) {
    for (int level : {16, 235}) {
      Yuv420SP v;
      v.width = v.height = 2, v.bytes = bytes, v.shift = bytes == 2 ? 16 - bits : 0;
      std::vector<uint16_t> y(4, uint16_t(bytes == 1 ? level * 0x0101 : (level << (bits - 8)) << (16 - bits)));
      std::vector<uint16_t> uv(2, uint16_t(bytes == 1 ? 0x8080 : 0x8000));
      v.y = reinterpret_cast<const uint8_t*>(y.data()), v.uv = reinterpret_cast<const uint8_t*>(uv.data());
      v.y_pitch = size_t(2 * bytes), v.uv_pitch = size_t(2 * bytes);
      ImageRGBA8 out;
      yuv420sp_to_rgba(v, yuv::in_coeffs(yuv::Matrix::Bt709, false, bits), 0, out);
      for (int i = 0; i < 4; ++i)
        for (int q = 0; q < 3; ++q) EXPECT_EQ(out.data[size_t(i) * 4 + q], level == 16 ? 0 : 255) << bits << " bits";
    }
  }
}

TEST(YuvIn, AFrameMadeByTheWriterComesBackWithinAFewLevels) {
  // A smooth image (chroma varies slowly, as in photographs): 4:2:0 loses little of it.
  const int w = 37, h = 23;
  ImageRGBA8 img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = img.px(x, y);
      p[0] = uint8_t(40 + 5 * x), p[1] = uint8_t(200 - 4 * y), p[2] = uint8_t(90 + 2 * x + 3 * y), p[3] = 255;
    }
  Yuv420 yuv;
  rgba_to_yuv420(img, yuv, 1);
  std::vector<uint8_t> uv(size_t(yuv.chroma_width()) * 2 * yuv.chroma_height());
  for (size_t i = 0; i < yuv.u.size(); ++i) uv[2 * i] = yuv.u[i], uv[2 * i + 1] = yuv.v[i];
  Yuv420SP v;
  v.width = w, v.height = h, v.y = yuv.y.data(), v.y_pitch = size_t(w), v.uv = uv.data(), v.uv_pitch = size_t(yuv.chroma_width()) * 2;
  ImageRGBA8 back;
  yuv420sp_to_rgba(v, yuv::in_coeffs(yuv::Matrix::Bt709, false, 8), 0, back, 2);
  int worst = 0;
  for (size_t i = 0; i < img.data.size(); ++i) worst = std::max(worst, std::abs(int(img.data[i]) - int(back.data[i])));
  EXPECT_LE(worst, 6);
}

TEST(YuvIn, TurnedFramesEqualTheTurnedConversion) {
  std::mt19937 rng(90);
  Planes p = random_planes(7, 4, 1, 8, rng);
  const yuv::InCoeffs k = yuv::in_coeffs(yuv::Matrix::Bt601, false, 8);
  ImageRGBA8 up;
  yuv420sp_to_rgba(p.view, k, 0, up, 1);
  for (int deg : {90, 180, 270}) {
    ImageRGBA8 t;
    yuv420sp_to_rgba(p.view, k, deg, t, 1);
    ASSERT_EQ(t.width, deg == 180 ? 7 : 4);
    for (int y = 0; y < t.height; ++y)
      for (int x = 0; x < t.width; ++x) {
        // counter-clockwise by deg: (x, y) shows the source pixel turned_source names, checked by hand here
        const int sx = deg == 90 ? 6 - y : deg == 180 ? 6 - x : y, sy = deg == 90 ? x : deg == 180 ? 3 - y : 3 - x;
        for (int q = 0; q < 4; ++q) ASSERT_EQ(t.px(x, y)[q], up.px(sx, sy)[q]) << deg;
      }
  }
}

}  // namespace
}  // namespace satlab
