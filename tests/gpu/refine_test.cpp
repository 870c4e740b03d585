// The GPU depth refiners against core's references (gpu/refine/refine_gpu.hpp check_refine): bit for bit for
// none, wmedian, jbu and snap, within core's guided_filter_bound for guided, on odd sizes (1x1, 1xN, Nx1,
// primes), with depth at the image's size over 1..8 (and 2/3, 3/2), with and without confidence, NaN holes,
// all-255 images, flat depth. Outputs are poisoned (a finite value no refiner returns) before each run, so
// an unwritten pixel fails. Every test skips with the reason where there is no CUDA device.
#include "gpu/refine/refine_gpu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/refine.hpp"
#include "gpu/device.hpp"
#include "gpu_skip.hpp"
#include "gpu_fixtures.hpp"

namespace {

using namespace satlab;

struct Input {
  ImageRGBA8 image;
  ImageF depth, conf;
  RefineInput in(bool with_conf) const { return {&image, &depth, with_conf ? &conf : nullptr}; }
};

// W x H image of colour blocks with noise over depth of (W / k) x (H / k): two planes, a slope and a
// disc, every 11th sample missing; confidence random in [0, 1] with zeros.
Input make_input(int W, int H, int k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Input r;
  r.image = ImageRGBA8(W, H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c) r.image.px(x, y)[c] = uint8_t(60 * ((x / 6 + y / 4 + c) % 4) + rng() % 16);
  const int w = std::max(1, W / k), h = std::max(1, H / k);
  r.depth = ImageF(w, h, 1);
  r.conf = ImageF(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float dx = float(x) - 0.5f * float(w), dy = float(y) - 0.5f * float(h);
      float d = dx * dx + dy * dy < 0.1f * float(w * h) ? 0.3f : (x < w / 3 ? 0.5f + 0.01f * float(y) : 1.2f);
      if ((y * w + x) % 11 == 5) d = std::nanf("");
      r.depth.at(x, y) = d;
      r.conf.at(x, y) = rng() % 8 == 0 ? 0.f : float(rng() % 1000) / 999.f;
    }
  return r;
}

void expect_equal(const std::string& name, const RefineInput& in, const std::string& what) {
  std::string note;
  const std::string d = gpu::check_refine(name, in, &note);
  EXPECT_EQ(d, "") << name << " on " << what;
}

TEST(RefineGpu, EveryRefinerIsRegisteredInFamilyRefine) {
  SKIP_WITHOUT_GPU();
  test::expect_registered(Family::Refine, refiners(), &Variant::refine);
}

TEST(RefineGpu, FastWeightsEqualCoresWeightOnEveryColourDifference) {
  SKIP_WITHOUT_GPU();
  EXPECT_EQ(gpu::check_refine_weights(), "");
}

TEST(RefineGpu, EveryRefinerEqualsCpuOnOddSizesAtScales1To8WithAndWithoutConfidence) {
  SKIP_WITHOUT_GPU();
  struct Size {
    int w, h;
  };
  const Size sizes[] = {{1, 1}, {1, 23}, {29, 1}, {3, 2}, {37, 31}, {131, 67}};
  int cases = 0;
  for (const Refiner& r : refiners())
    for (const Size& s : sizes)
      for (int k = 1; k <= 8; ++k) {
        const Input in = make_input(s.w, s.h, k, uint64_t(s.w * 1000 + s.h * 10 + k));
        for (bool conf : {false, true}) {
          expect_equal(r.name, in.in(conf),
                       std::to_string(s.w) + "x" + std::to_string(s.h) + " / " + std::to_string(k) +
                           (conf ? " with confidence" : ""));
          ++cases;
        }
      }
  EXPECT_EQ(cases, int(refiners().size()) * 6 * 8 * 2);
}

TEST(RefineGpu, EveryRefinerEqualsCpuOnVerifysAwkwardCases) {
  SKIP_WITHOUT_GPU();
  const auto cases = gpu::refine_cases(20261127);
  ASSERT_GT(cases.size(), 100u);
  for (const Refiner& r : refiners())
    for (const gpu::RefineCase& c : cases) expect_equal(r.name, c.input(), c.what);
}

TEST(RefineGpu, PhoneDepthAQuarterOfA1001x563ImageEqualsCpu) {
  SKIP_WITHOUT_GPU();  // many tiles and a non-multiple of the tile size
  const Input in = make_input(1001, 563, 4, 9);
  for (const Refiner& r : refiners()) expect_equal(r.name, in.in(false), "1001x563 from 250x140");
}

TEST(RefineGpu, OutputStaysWithinTheInputsRangeAndFlatDepthStaysFlat) {
  SKIP_WITHOUT_GPU();
  Input in = make_input(97, 61, 3, 4);
  float lo = INFINITY, hi = -INFINITY;
  for (float v : in.depth.data)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  for (const Refiner& r : refiners()) {
    const ImageF out = gpu::refine_gpu(r.name, in.in(true));
    ASSERT_EQ(out.width, 97);
    ASSERT_EQ(out.height, 61);
    for (float v : out.data)
      if (!std::isnan(v)) {
        EXPECT_GE(v, lo * (1 - 1e-6f)) << r.name;  // none: a bilinear blend may round an ulp past
        EXPECT_LE(v, hi * (1 + 1e-6f)) << r.name;
      }
  }
  std::fill(in.depth.data.begin(), in.depth.data.end(), 0.625f);
  for (const Refiner& r : refiners()) {
    const ImageF out = gpu::refine_gpu(r.name, in.in(false));
    for (float v : out.data) EXPECT_FLOAT_EQ(v, 0.625f) << r.name;
  }
}

TEST(RefineGpu, RefusesBadInputAsTheCpuDoes) {
  SKIP_WITHOUT_GPU();
  Input in = make_input(20, 10, 2, 1);
  ImageF small_conf(3, 3, 1);
  const RefineInput bad{&in.image, &in.depth, &small_conf};
  for (const Refiner& r : refiners()) {
    EXPECT_THROW(gpu::refine_gpu(r.name, bad), Error) << r.name;
    EXPECT_EQ(gpu::check_refine(r.name, bad), "") << r.name << ": the GPU and the CPU refuse alike";
  }
  EXPECT_THROW(gpu::refine_gpu("no_such_refiner", in.in(false)), Error);
}

}  // namespace
