// The GPU guided filter against core's reference on fresh random inputs: odd sizes (1x1, 1xN, primes,
// non-multiples of the tiles), radii up to and past the image, colour and gray, every float SAT builder;
// within core's derived bound (guided_filter_bound with the builders' kFloatSatRelBound). The output is
// poisoned (NaN) before each run, so an unwritten pixel fails.
// The bound is worst-case: it grows with the SAT's magnitude (the image's size) over the window's pixel
// count and with 1/eps, so it is informative (below kInformative) for every radius on small images and
// for radii >= 8 or so on larger ones; cases where it is not are counted, not checked.
#include "core/guided_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "gpu/depth/guided_filter_gpu.hpp"
#include "gpu/device.hpp"
#include "gpu/sat/sat_host.hpp"
#include "variant_test_util.hpp"
#include "gpu_skip.hpp"
#include "tests/cpu/test_util.hpp"

namespace {

using namespace satlab;

ImageF random_float(int w, int h, int c, std::mt19937& rng, bool adversarial = false) {
  ImageF im(w, h, c);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : im.data) v = adversarial ? ((rng() & 1) ? 1.f : 0.f) : u(rng);
  return im;
}

constexpr double kInformative = 0.02;

// Checks |gpu - cpu| <= bound at every pixel (NaN fails); returns false, checking only that every pixel
// was written, when the bound exceeds `informative`.
bool expect_within_bound(const ImageF& guide, const ImageF& p, const GuidedParams& g, const std::string& sat,
                         bool report = false, double informative = kInformative) {
  const gpu::GuidedResult got = gpu::guided_filter_gpu(guide, p, g, sat);
  const ImageF want = guided_filter(guide, p, g, got.offsets);
  const double bound =
      guided_filter_bound(guide, p, g.radius, g.eps, g.gray, gpu::kFloatSatRelBound, 0, &got.offsets);
  if (!(bound <= informative)) {
    size_t nan = 0;
    double worst = 0;
    for (size_t i = 0; i < want.data.size(); ++i) {
      nan += std::isnan(got.q.data[i]);
      worst = std::max(worst, std::fabs(double(got.q.data[i]) - double(want.data[i])));
    }
    EXPECT_EQ(nan, 0u) << "unwritten or NaN pixels";
    if (report)
      std::printf("guided %dx%d r=%d eps=%g %s (%s): worst |gpu - cpu| %.3g, bound %.3g (not informative)\n",
                  guide.width, guide.height, g.radius, double(g.eps), g.gray ? "gray" : "colour",
                  got.builder.c_str(), worst, bound);
    return false;
  }
  double worst = 0;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.data.size(); ++i) {
    const double d = std::fabs(double(got.q.data[i]) - double(want.data[i]));
    if (!(d <= bound) && bad++ == 0) first = i;  // NaN (unwritten) fails too
    if (!(d <= worst)) worst = d;
  }
  if (report)
    std::printf("guided %dx%d r=%d eps=%g %s (%s): worst |gpu - cpu| %.3g, bound %.3g\n", guide.width,
                guide.height, g.radius, double(g.eps), g.gray ? "gray" : "colour", got.builder.c_str(), worst,
                bound);
  EXPECT_EQ(bad, 0u) << guide.width << "x" << guide.height << " r=" << g.radius << " eps=" << g.eps
                     << (g.gray ? " gray" : " colour") << " builder " << got.builder << ": first at pixel "
                     << first << " got " << got.q.data[first] << " want " << want.data[first] << ", worst "
                     << worst << " > bound " << bound;
  return true;
}

TEST(GpuGuidedFilter, MatchesTheReferenceWithinTheBoundOnOddSizesAndRadii) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  // Widths of multiples of 4 (96, 132) take sat_lookback_2d's raw stack loads (a 3-channel guide; 132: a
  // last tile of 4 pixels), the others its loads through registers.
  const int sizes[][2] = {{1, 1},    {1, 37},    {53, 1},    {7, 5},    {37, 23},
                          {96, 61},  {131, 67},  {132, 67},  {257, 129}, {509, 263}};
  int checked = 0, cases = 0;
  for (auto s : sizes)
    if (size_t(s[0]) * size_t(s[1]) <= test::test_max_n())  // the sanitizer runs take the small ones
      for (int r : {0, 1, 2, 8, 32, 600})
        for (float eps : {1e-2f, 5e-2f})
          for (bool gray : {false, true})
            for (int gc : {3, 4, 1}) {
              GuidedParams g;
              g.radius = r, g.eps = eps, g.gray = gray;
              const ImageF guide = random_float(s[0], s[1], gc, rng);
              const ImageF p = random_float(s[0], s[1], 1, rng);
              checked += expect_within_bound(guide, p, g, "");
              ++cases;
            }
  std::printf("guided: %d of %d cases had an informative bound (<= %g) and were checked against it\n",
              checked, cases, kInformative);
  EXPECT_GE(checked, cases / 2);  // the bound must stay informative on most of the sweep
}

TEST(GpuGuidedFilter, EveryFloatSatBuilderStaysWithinTheBound) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  if (211u * 97u > test::test_max_n()) GTEST_SKIP() << "SATLAB_TEST_MAX_N is below 211 x 97";
  int builders = 0;
  for (const Variant& v : gpu::variants()) {
    if (v.family != Family::Sat || std::find(v.dtypes.begin(), v.dtypes.end(), DType::F32) == v.dtypes.end())
      continue;
    ++builders;
    SCOPED_TRACE(v.name);
    for (bool gray : {false, true}) {
      GuidedParams g;
      g.radius = 16, g.eps = 5e-2f, g.gray = gray;
      EXPECT_TRUE(
          expect_within_bound(random_float(211, 97, 3, rng), random_float(211, 97, 1, rng), g, v.name))
          << "bound not informative";
    }
  }
  EXPECT_GT(builders, 0) << "no float SAT builder: nothing checked";
}

TEST(GpuGuidedFilter, AdversarialBinaryImagesAndSmallEpsStayWithinTheBound) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  for (float eps : {1e-1f, 1e-2f})
    for (bool gray : {false, true}) {
      GuidedParams g;
      g.radius = 8, g.eps = eps, g.gray = gray;
      expect_within_bound(random_float(47, 31, 3, rng, true), random_float(47, 31, 1, rng, true), g, "",
                          true);
    }
}

TEST(GpuGuidedFilter, FourKWritesEveryPixelAndReportsItsWorstDifference) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(11);
  GuidedParams g;
  g.radius = 32, g.eps = 1e-2f;
  // Smooth guide and depth (as photographs are). At this size the worst-case bound is loose (it scales
  // with the SAT's magnitude, n = 8.3M pixels), so the measured worst difference is printed for the record.
  ImageF guide(3840, 2160, 3), p(3840, 2160, 1);
  for (int y = 0; y < 2160; ++y)
    for (int x = 0; x < 3840; ++x) {
      for (int c = 0; c < 3; ++c)
        guide.at(x, y, c) = 0.5f + 0.4f * std::sin(0.01f * float(x + 7 * c) + 0.013f * float(y));
      p.at(x, y) = float(x) / 3840.f;
    }
  expect_within_bound(guide, p, g, "", true, INFINITY);
  g.gray = true;
  expect_within_bound(guide, p, g, "", true, INFINITY);
}

TEST(GpuGuidedFilter, BadArgumentsThrow) {
  SKIP_WITHOUT_GPU();
  GuidedParams g;
  g.eps = 0.f;
  EXPECT_THROW(gpu::guided_filter_gpu(ImageF(4, 4, 3), ImageF(4, 4, 1), g), Error);
  g.eps = 1e-3f;
  EXPECT_THROW(gpu::guided_filter_gpu(ImageF(4, 4, 3), ImageF(4, 5, 1), g), Error);
  EXPECT_THROW(gpu::guided_filter_gpu(ImageF(4, 4, 3), ImageF(4, 4, 1), g, "no_such_builder"), Error);
}

}  // namespace
