// The CPU guided filter (core/guided_filter): against a brute-force float64 version that walks every
// window (no SATs, no centring), and the filter's limiting cases.
#include "core/guided_filter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "test_util.hpp"

namespace {

using satlab::ImageF;

ImageF random_float(int w, int h, int c, uint32_t seed) {
  ImageF im(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : im.data) v = u(rng);
  return im;
}

// The textbook filter, float64 throughout, windows walked pixel by pixel.
ImageF brute_force(const ImageF& guide, const ImageF& p, int r, double eps, bool gray) {
  const int w = p.width, h = p.height;
  const ImageF I = (gray || guide.channels == 1) ? satlab::guide_luma(guide) : guide;
  const int nc = I.channels == 1 ? 1 : 3;
  std::vector<double> A(size_t(w) * size_t(h) * 3), B(size_t(w) * size_t(h));
  auto win = [&](int x, int y, auto&& fn) {
    for (int yy = std::max(0, y - r); yy <= std::min(h - 1, y + r); ++yy)
      for (int xx = std::max(0, x - r); xx <= std::min(w - 1, x + r); ++xx) fn(xx, yy);
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double n = 0, mi[3] = {0, 0, 0}, mp = 0, mip[3] = {0, 0, 0}, mii[3][3] = {};
      win(x, y, [&](int xx, int yy) {
        n += 1;
        const double pv = p.at(xx, yy);
        mp += pv;
        for (int a = 0; a < nc; ++a) {
          const double ia = I.at(xx, yy, a);
          mi[a] += ia;
          mip[a] += ia * pv;
          for (int b = 0; b < nc; ++b) mii[a][b] += ia * double(I.at(xx, yy, b));
        }
      });
      mp /= n;
      double S[3][3], c[3];
      for (int a = 0; a < nc; ++a) mi[a] /= n;
      for (int a = 0; a < nc; ++a) {
        c[a] = mip[a] / n - mi[a] * mp;
        for (int b = 0; b < nc; ++b) S[a][b] = mii[a][b] / n - mi[a] * mi[b] + (a == b ? eps : 0.0);
      }
      double a[3] = {0, 0, 0};
      if (nc == 1) {
        a[0] = c[0] / S[0][0];
      } else {  // Cramer's rule
        auto det = [](double m[3][3]) {
          return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        };
        const double d = det(S);
        for (int k = 0; k < 3; ++k) {
          double M[3][3];
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) M[i][j] = j == k ? c[i] : S[i][j];
          a[k] = det(M) / d;
        }
      }
      const size_t i = size_t(y) * size_t(w) + size_t(x);
      double b = mp;
      for (int k = 0; k < nc; ++k) A[i * 3 + size_t(k)] = a[k], b -= a[k] * mi[k];
      B[i] = b;
    }
  ImageF q(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double n = 0, ma[3] = {0, 0, 0}, mb = 0;
      win(x, y, [&](int xx, int yy) {
        const size_t i = size_t(yy) * size_t(w) + size_t(xx);
        n += 1;
        mb += B[i];
        for (int k = 0; k < nc; ++k) ma[k] += A[i * 3 + size_t(k)];
      });
      double v = mb / n;
      for (int k = 0; k < nc; ++k) v += ma[k] / n * double(I.at(x, y, k));
      q.at(x, y) = float(v);
    }
  return q;
}

ImageF box_mean(const ImageF& p, int r) {
  ImageF q(p.width, p.height, 1);
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) {
      double s = 0, n = 0;
      for (int yy = std::max(0, y - r); yy <= std::min(p.height - 1, y + r); ++yy)
        for (int xx = std::max(0, x - r); xx <= std::min(p.width - 1, x + r); ++xx) s += p.at(xx, yy), n += 1;
      q.at(x, y) = float(s / n);
    }
  return q;
}

double max_diff(const ImageF& a, const ImageF& b) {
  double m = 0;
  for (size_t i = 0; i < a.data.size(); ++i)
    m = std::max(m, std::fabs(double(a.data[i]) - double(b.data[i])));
  return m;
}

TEST(GuidedFilter, MatchesBruteForceOnOddSizesAndRadiiPastTheImage) {
  const uint32_t seed = satlab::test::fresh_seed();
  SCOPED_TRACE(seed);
  const int sizes[][2] = {{1, 1}, {1, 9}, {13, 1}, {7, 5}, {23, 17}};
  for (auto s : sizes)
    for (int r : {0, 1, 3, 40})
      for (bool gray : {false, true}) {
        SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + " r=" + std::to_string(r) +
                     (gray ? " gray" : " colour"));
        const ImageF g = random_float(s[0], s[1], 3, seed + uint32_t(r));
        const ImageF p = random_float(s[0], s[1], 1, seed ^ 0x9e3779b9u);
        for (float eps : {1e-3f, 0.1f}) {
          const ImageF got = satlab::guided_filter(g, p, r, eps, gray);
          const ImageF want = brute_force(g, p, r, double(eps), gray);
          // Both float64 apart from the float stacks (centred, relative 2^-24 each): 1e-4 is generous.
          EXPECT_LT(max_diff(got, want), 1e-4) << "eps " << eps;
        }
      }
}

TEST(GuidedFilter, ConstantGuideGivesTheBoxMeanOfP) {
  const ImageF p = random_float(19, 11, 1, 7);
  ImageF g(19, 11, 3);
  for (size_t i = 0; i < g.pixels(); ++i)
    g.data[i * 3] = 0.3f, g.data[i * 3 + 1] = 0.6f, g.data[i * 3 + 2] = 0.1f;
  for (bool gray : {false, true})
    for (int r : {0, 2, 30})
      EXPECT_LT(max_diff(satlab::guided_filter(g, p, r, 1e-4f, gray), box_mean(box_mean(p, r), r)), 1e-5)
          << "r " << r;
}

TEST(GuidedFilter, HugeEpsGivesTheBoxMeanOfP) {
  // a -> 0, so q = mean over windows of mean(p): the box mean applied twice.
  const ImageF g = random_float(17, 13, 3, 3);
  const ImageF p = random_float(17, 13, 1, 4);
  for (bool gray : {false, true})
    EXPECT_LT(max_diff(satlab::guided_filter(g, p, 3, 1e9f, gray), box_mean(box_mean(p, 3), 3)), 1e-6);
}

TEST(GuidedFilter, PEqualToTheGrayGuideIsNearlyIdentityForSmallEps) {
  const ImageF g = random_float(21, 15, 3, 5);
  const ImageF p = satlab::guide_luma(g);
  for (bool gray : {false, true})
    EXPECT_LT(max_diff(satlab::guided_filter(g, p, 2, 1e-6f, gray), p), 2e-3) << gray;
}

TEST(GuidedFilter, FollowsAGuideEdgeThatTheDepthOnlyRoughlyHas) {
  // Guide: left half dark, right half bright; rough depth: the step 3 pixels off. The refined depth steps
  // where the guide does.
  const int w = 32, h = 8;
  ImageF g(w, h, 3), p(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      for (int c = 0; c < 3; ++c) g.at(x, y, c) = x < 16 ? 0.1f : 0.9f;
      p.at(x, y) = x < 19 ? 0.f : 1.f;
    }
  const ImageF q = satlab::guided_filter(g, p, 6, 1e-4f, false);
  const ImageF b = box_mean(p, 6);
  // Just left of the guide's edge the refined depth stays near; the box blur has already risen.
  EXPECT_LT(q.at(15, 4) - q.at(4, 4), 0.25f);
  EXPECT_GT(q.at(16, 4) - q.at(15, 4), 0.2f);
  EXPECT_GT(b.at(17, 4), b.at(15, 4));
}

TEST(GuidedFilter, BadArgumentsThrowOneLine) {
  const ImageF g = random_float(4, 4, 3, 1), p = random_float(4, 3, 1, 2);
  EXPECT_THROW(satlab::guided_filter(g, p, 1, 1e-3f, false), satlab::Error);
  const ImageF p2 = random_float(4, 4, 1, 2);
  EXPECT_THROW(satlab::guided_filter(g, p2, -1, 1e-3f, false), satlab::Error);
  EXPECT_THROW(satlab::guided_filter(g, p2, 1, 0.f, false), satlab::Error);
  EXPECT_THROW(satlab::guided_filter(g, p2, 1, NAN, false), satlab::Error);
  EXPECT_THROW(satlab::guided_filter(random_float(4, 4, 2, 1), p2, 1, 1e-3f, false), satlab::Error);
}

TEST(GuidedFilter, BoundIsFiniteAndSmallOnTinyImagesAndGrowsWithSatError) {
  const ImageF g = random_float(31, 17, 3, 8), p = random_float(31, 17, 1, 9);
  const double b0 = satlab::guided_filter_bound(g, p, 4, 1e-2f, false, 0.0);
  const double b1 = satlab::guided_filter_bound(g, p, 4, 1e-2f, false, 2.0 * 17.0 * 5.96e-8);
  EXPECT_GT(b0, 0.0);  // the float output's rounding at least
  EXPECT_LT(b0, 1e-6);
  EXPECT_GT(b1, b0);
  EXPECT_LT(b1, 1e-2);
}

}  // namespace
