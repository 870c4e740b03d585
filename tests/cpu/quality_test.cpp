// core/quality: PSNR, SSIM and the occlusion band on inputs whose scores are known in closed form.
#include "core/quality.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/params.hpp"
#include "core/reference.hpp"
#include "tests/cpu/test_util.hpp"

namespace satlab {
namespace {

ImageRGBA8 constant(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
  ImageRGBA8 img(w, h);
  for (size_t i = 0; i < img.pixels(); ++i)
    img.data[i * 4] = r, img.data[i * 4 + 1] = g, img.data[i * 4 + 2] = b, img.data[i * 4 + 3] = 255;
  return img;
}

TEST(Quality, IdenticalImagesScoreInfinitePsnrAndSsimOne) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  const ImageRGBA8 a = test::random_image(37, 23, seed);
  const Mask all(a.pixels(), 1);
  const Scores s = score(a, a, all);
  EXPECT_TRUE(std::isinf(s.whole.psnr) && s.whole.psnr > 0);
  EXPECT_TRUE(std::isinf(s.band.psnr));
  EXPECT_DOUBLE_EQ(s.whole.ssim, 1.0);
  EXPECT_DOUBLE_EQ(s.band.ssim, 1.0);
  EXPECT_EQ(s.band.pixels, a.pixels());
}

TEST(Quality, ConstantOffsetGivesItsPsnr) {
  // Every R, G and B value off by 5 (alpha ignored): MSE 25, PSNR 10 log10(255^2 / 25).
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  ImageRGBA8 a = test::random_image(41, 17, seed), b = a;
  for (size_t i = 0; i < a.data.size(); ++i) {
    if (i % 4 == 3) {
      b.data[i] = uint8_t(255 - a.data[i]);
      continue;
    }
    a.data[i] = uint8_t(a.data[i] % 250);
    b.data[i] = uint8_t(a.data[i] + 5);
  }
  EXPECT_NEAR(psnr(a, b), 10 * std::log10(255.0 * 255.0 / 25.0), 1e-9);
  // Off by 6 in one channel only: MSE 36 / 3.
  ImageRGBA8 c = a;
  for (size_t i = 0; i < c.pixels(); ++i) c.data[i * 4 + 1] = uint8_t(a.data[i * 4 + 1] + 6);
  EXPECT_NEAR(psnr(a, c), 10 * std::log10(255.0 * 255.0 / 12.0), 1e-9);
}

TEST(Quality, PsnrOverAMaskCountsOnlyItsPixels) {
  ImageRGBA8 a = constant(8, 4, 100, 100, 100), b = a;
  Mask m(a.pixels(), 0);
  for (int x = 0; x < 8; ++x) b.px(x, 0)[0] = 110;  // row 0 differs by 10 in red
  for (int x = 0; x < 8; ++x) m[size_t(x)] = 1;
  EXPECT_NEAR(psnr(a, b, &m), 10 * std::log10(255.0 * 255.0 / (100.0 / 3)), 1e-9);
  for (int x = 0; x < 8; ++x) m[size_t(x)] = 0, m[size_t(8 + x)] = 1;
  EXPECT_TRUE(std::isinf(psnr(a, b, &m)));
  const Mask empty(a.pixels(), 0);
  EXPECT_TRUE(std::isnan(psnr(a, b, &empty)));  // empty mask: undefined
}

TEST(Quality, SsimOfFlatImagesIsTheLuminanceTerm) {
  // No variance anywhere: SSIM = (2 mu_x mu_y + C1) / (mu_x^2 + mu_y^2 + C1) per channel.
  const ImageRGBA8 a = constant(13, 11, 100, 100, 100), b = constant(13, 11, 110, 100, 100);
  const double c1 = 2.55 * 2.55;
  const double red = (2 * 100.0 * 110 + c1) / (100.0 * 100 + 110.0 * 110 + c1);
  const ImageF m = ssim_map(a, b);
  for (float v : m.data) EXPECT_NEAR(v, (red + 2) / 3, 1e-6);
}

TEST(Quality, SsimFallsWithNoiseAndIsSymmetric) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  const ImageRGBA8 a = test::random_image(29, 31, seed), b = test::random_image(29, 31, seed + 1);
  const Mask none(a.pixels(), 0);
  const Scores ab = score(a, b, none), ba = score(b, a, none);
  EXPECT_LT(ab.whole.ssim, 0.2);
  EXPECT_NEAR(ab.whole.ssim, ba.whole.ssim, 1e-12);
  EXPECT_TRUE(std::isnan(ab.band.ssim));
  EXPECT_EQ(ab.band.pixels, 0u);
}

TEST(Quality, RefusesImagesOfDifferentSizes) {
  EXPECT_THROW(psnr(ImageRGBA8(4, 4), ImageRGBA8(4, 5)), Error);
  EXPECT_THROW(ssim_map(ImageRGBA8(4, 4), ImageRGBA8(5, 4)), Error);
  EXPECT_THROW(score(ImageRGBA8(4, 4), ImageRGBA8(4, 4), Mask(3, 0)), Error);
}

TEST(Quality, BandOfTwoPlanesIsTheStripWithinTheRadiusOfTheirBorder) {
  // Left half at the near plane, right half at the far one: the CoC jumps between columns 9 and 10,
  // which are the edges; the band within 3 px of them is columns 6..13.
  const int w = 20, h = 7;
  ImageF depth(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) depth.at(x, y) = x < w / 2 ? 0.f : 1.f;
  Params p;
  p.focus = 1.f;
  const ImageF coc = coc_map(normalise_depth(depth), p);
  const Mask edges = depth_edges(coc, 1.0f);
  const Mask band = dilate(edges, w, h, 3.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      EXPECT_EQ(edges[size_t(y * w + x)] != 0, x == 9 || x == 10) << x << "," << y;
      EXPECT_EQ(band[size_t(y * w + x)] != 0, x >= 6 && x <= 13) << x << "," << y;
    }
  EXPECT_EQ(count(band), size_t(8 * h));
  // A CoC ramp below the jump has no edge; NaN never makes one.
  ImageF ramp(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ramp.at(x, y) = 0.9f * x;
  ramp.at(5, 3) = NAN;
  EXPECT_EQ(count(depth_edges(ramp, 1.0f)), 0u);
}

TEST(Quality, DilateMarksTheDiscOfTheRadius) {
  Mask one(81, 0);
  one[4 * 9 + 4] = 1;
  EXPECT_EQ(count(dilate(one, 9, 9, 2.0f)), 13u);  // lattice points with dx^2 + dy^2 <= 4
  EXPECT_EQ(count(dilate(one, 9, 9, 0.0f)), 1u);
  one[0] = 1;  // clipped at the corner: 6 of its 13
  EXPECT_EQ(count(dilate(one, 9, 9, 2.0f)), 13u + 6u);
}

// The warping error with known motion: an object moved exactly as said scores 0 wherever it was
// visible before; a change of the pixels scores its squared size; the pixels it uncovered are left out.
TEST(Quality, WarpingErrorFollowsTheKnownMotion) {
  const int w = 20, h = 6;
  ImageRGBA8 prev(w, h), cur(w, h);
  std::vector<uint8_t> ip(size_t(w) * h, 0), ic(size_t(w) * h, 0);
  auto paint = [&](ImageRGBA8& img, std::vector<uint8_t>& ids, int x0) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const bool obj = x >= x0 && x < x0 + 5;
        uint8_t* p = img.px(x, y);
        p[0] = uint8_t(obj ? 200 + (x - x0) * 10 : x * 5), p[1] = uint8_t(y * 20), p[2] = 90, p[3] = 255;
        ids[size_t(y) * w + x] = obj ? 1 : 0;
      }
  };
  paint(prev, ip, 4);
  paint(cur, ic, 7);  // moved 3 px right
  std::vector<std::pair<double, double>> motion(256, {0.0, 0.0});
  motion[1] = {3.0, 0.0};
  size_t n = 0;
  EXPECT_EQ(warping_error(cur, prev, ic, ip, motion, &n), 0.0);
  // The background pixels the object covered in either frame are not visible in both: 20 - 5 - 3 a row.
  EXPECT_EQ(n, size_t((5 + 12) * h));
  ImageRGBA8 brighter = cur;
  for (size_t i = 0; i < brighter.pixels(); ++i) brighter.data[i * 4 + 2] = 141;  // blue +51 everywhere
  EXPECT_NEAR(warping_error(brighter, prev, ic, ip, motion), 0.04, 1e-12);  // (51/255)^2
  motion[1] = {0.0, 0.0};  // the motion not known: the moved object counts as change
  EXPECT_GT(warping_error(cur, prev, ic, ip, motion), 0.0);
}

}  // namespace
}  // namespace satlab

// A point light's footprint (pixels at half the window's peak or more): the same image gives IoU 1 and no
// shift; a disc moved by 2 px gives a shift of 2 px and the discs' IoU; a window with nothing lit in one
// image gives IoU 0 and no centroid; the window is clipped to the frame.
TEST(Quality, DotShapeComparesHalfPeakFootprints) {
  const auto disc = [](int w, int h, double cx, double cy, double r, int value) {
    satlab::ImageRGBA8 im(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const bool in = (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
        uint8_t* q = im.px(x, y);
        q[0] = q[1] = q[2] = uint8_t(in ? value : 10), q[3] = 255;
      }
    return im;
  };
  const satlab::ImageRGBA8 a = disc(40, 30, 20, 15, 6, 200), b = disc(40, 30, 22, 15, 6, 90);
  satlab::DotShape s = satlab::dot_shape(a, a, 20, 15, 10);
  EXPECT_EQ(s.iou, 1.0);
  EXPECT_EQ(s.shift, 0.0);
  s = satlab::dot_shape(a, b, 20, 15, 10);  // brightness does not matter, only the footprint
  EXPECT_NEAR(s.shift, 2.0, 1e-9);
  long both = 0, any = 0;
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) {
      const bool p = (x - 20) * (x - 20) + (y - 15) * (y - 15) <= 36, q = (x - 22) * (x - 22) + (y - 15) * (y - 15) <= 36;
      both += p && q, any += p || q;
    }
  EXPECT_NEAR(s.iou, double(both) / double(any), 1e-12);
  EXPECT_LT(s.iou, 0.9);
  satlab::ImageRGBA8 dark(40, 30);
  s = satlab::dot_shape(a, dark, 20, 15, 10);
  EXPECT_EQ(s.iou, 0.0);
  EXPECT_TRUE(std::isnan(s.shift));
  s = satlab::dot_shape(a, a, 1, 1, 50);  // a window past every edge
  EXPECT_EQ(s.iou, 1.0);
  EXPECT_THROW(satlab::dot_shape(a, disc(41, 30, 20, 15, 6, 200), 20, 15, 10), satlab::Error);
}
