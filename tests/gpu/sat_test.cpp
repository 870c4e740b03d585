// Every registered SAT variant against the CPU reference: bit-exact for 8-bit and RGBA16 input (wrap-around
// uint32) on random images of awkward sizes and on an all-255 16384x16384; float within its stated bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "core/reference.hpp"
#include "gpu/device.hpp"
#include "gpu/sat/sat_host.hpp"
#include "variant_test_util.hpp"
#include "gpu_skip.hpp"

namespace {

using satlab::DType;
using satlab::Family;
using satlab::Variant;

// Every registered builder and every builder's bench policies (gpu::sat_policy_variants: each must be as
// exact as its default).
// SATLAB_TEST_OWN_SAT_ONLY=1 leaves out the external baselines (NPP): tools/device.sh sanitize-all sets it for
// racecheck, whose reports inside NPP's kernels are not satlab's and whose slowness there cut the run short.
// SATLAB_TEST_SAT_ONLY=NAME keeps that one builder (sanitizer runs of a single builder).
std::vector<const Variant*> sat_variants(DType t) {
  static const std::vector<Variant> policies = satlab::gpu::sat_policy_variants();
  static const bool own_only = [] {
    const char* e = std::getenv("SATLAB_TEST_OWN_SAT_ONLY");
    return e && *e && *e != '0';
  }();
  static const std::string only = [] {
    const char* e = std::getenv("SATLAB_TEST_SAT_ONLY");
    return std::string(e ? e : "");
  }();
  std::vector<const Variant*> out;
  for (const auto* list : {&satlab::gpu::variants(), &policies})
    for (const auto& v : *list)
      if (v.family == Family::Sat && v.refuses && v.refuses(1, t).empty() &&
          (!own_only || v.name.rfind("sat_", 0) == 0) && (only.empty() || v.name == only))
        out.push_back(&v);
  return out;
}

// A bench policy is BUILDER@POLICY of a registered builder, takes only types its builder takes, and is
// not itself in the registry (the UI and `satlab verify` list the defaults).
TEST(SatPolicies, EachNamesARegisteredBuilderAndStaysOutOfTheRegistry) {
  const auto policies = satlab::gpu::sat_policy_variants();
  if (satlab::gpu::variants().empty()) GTEST_SKIP() << "built without CUDA: no builders";
  EXPECT_GE(policies.size(), 4u);
  for (const Variant& p : policies) {
    const size_t at = p.name.find('@');
    ASSERT_NE(at, std::string::npos) << p.name;
    const Variant* base = nullptr;
    for (const Variant& v : satlab::gpu::variants()) {
      EXPECT_NE(v.name, p.name) << "a policy in the registry";
      if (v.name == p.name.substr(0, at)) base = &v;
    }
    ASSERT_NE(base, nullptr) << p.name << ": no registered builder " << p.name.substr(0, at);
    EXPECT_EQ(p.family, Family::Sat) << p.name;
    for (DType t : p.dtypes)
      EXPECT_NE(std::find(base->dtypes.begin(), base->dtypes.end(), t), base->dtypes.end())
          << p.name << " takes " << satlab::to_string(t) << ", its builder does not";
  }
}

struct Size {
  int w, h;
};
// 1x1, single rows and columns, primes, non-multiples of every tile, and a full-tile multiple.
const Size kSizes[] = {{1, 1},   {1, 777},  {1013, 1}, {2, 3},     {31, 29},    {127, 257},
                       {128, 256}, {509, 263}, {1021, 1031}, {4097, 3}, {3, 2049}, {1920, 1080}, {4097, 3001}};

void expect_same(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << what << ": first mismatch at element " << first << " got " << got[first] << " want "
                     << want[first];
}

TEST(Sat, EveryIntegerVariantMatchesTheCpuReferenceBitForBitOnOddSizes) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (DType t : {DType::U8, DType::RGBA8}) {
    const auto vs = sat_variants(t);
    if (vs.empty() && std::getenv("SATLAB_TEST_SAT_ONLY")) continue;  // the builder kept does not take t
    ASSERT_FALSE(vs.empty()) << "no SAT variant takes " << satlab::to_string(t);
    const int ch = t == DType::RGBA8 ? 4 : 1;
    for (const Size s : kSizes) {
      if (size_t(s.w) * size_t(s.h) > satlab::test::test_max_n()) continue;
      std::vector<uint8_t> img(size_t(s.w) * s.h * ch);
      for (auto& b : img) b = uint8_t(rng());
      std::vector<uint32_t> want;
      if (ch == 1) {
        satlab::sat_u8(img.data(), s.w, s.h, want);
      } else {
        satlab::ImageRGBA8 im(s.w, s.h);
        im.data = img;
        satlab::sat_rgba8(im, want);
      }
      for (const Variant* v : vs)
        expect_same(satlab::gpu::run_sat_u32(*v, img.data(), s.w, s.h, ch), want,
                    v->name + " " + satlab::to_string(t) + " " + std::to_string(s.w) + "x" + std::to_string(s.h));
    }
  }
}

// RGBA16 input (the layered DoF mode's one table per layer): every builder that takes it against core's
// sat_u16, bit for bit, on random 16-bit values at the odd sizes and on all-0xFFFF images (the largest
// values: 4097x3001 of them wrap around uint32 many times over).
TEST(Sat, Rgba16VariantsMatchTheCpuReferenceBitForBitOnOddSizesAndAll0xFFFF) {
  SKIP_WITHOUT_GPU();
  const auto vs = sat_variants(DType::RGBA16);
  if (vs.empty() && std::getenv("SATLAB_TEST_SAT_ONLY"))
    GTEST_SKIP() << "the builder kept does not take rgba16";
  ASSERT_FALSE(vs.empty()) << "no SAT variant takes rgba16";
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (const bool white : {false, true})
    for (const Size s : kSizes) {
      if (size_t(s.w) * size_t(s.h) > satlab::test::test_max_n()) continue;
      std::vector<uint16_t> img(size_t(s.w) * s.h * 4, 0xFFFF);
      if (!white)
        for (auto& e : img) e = uint16_t(rng());
      std::vector<uint32_t> want;
      satlab::sat_u16(img.data(), s.w, s.h, 4, want);
      for (const Variant* v : vs)
        expect_same(satlab::gpu::run_sat_u16(*v, img.data(), s.w, s.h), want,
                    v->name + " rgba16" + (white ? " all-0xFFFF " : " ") + std::to_string(s.w) + "x" +
                        std::to_string(s.h));
    }
}

// SatArgs::phase: every satlab builder announces each of its phases (the pipeline times them), in
// enqueue order, and the result is still exact with the hook set.
TEST(Sat, EveryBuilderAnnouncesItsPhasesThroughTheHook) {
  SKIP_WITHOUT_GPU();
  std::vector<uint8_t> img(size_t(333) * 257);
  std::mt19937 rng(3);
  for (auto& b : img) b = uint8_t(rng());
  std::vector<uint32_t> want;
  satlab::sat_u8(img.data(), 333, 257, want);
  for (const Variant* v : sat_variants(DType::U8)) {
    if (v->name.rfind("sat_", 0) != 0) continue;  // external baselines (NPP) are one opaque call
    std::vector<std::string> phases;
    expect_same(satlab::gpu::run_sat_u32(*v, img.data(), 333, 257, 1, &phases), want, v->name + " with the hook");
    EXPECT_GE(phases.size(), 1u) << v->name;  // the single-pass builders: their one pass
    for (const std::string& p : phases) EXPECT_EQ(p.rfind("sat ", 0), 0u) << v->name << ": " << p;
  }
}

// The single-pass builders keep their look-back words from launch to launch and tell their own launch's
// from an earlier one's by its epoch: different images of one size in a row, through the last epoch and
// the words' zeroing and restart, each exact (u8) or within the bound (float).
TEST(Sat, LookBackWordsOfAnEarlierLaunchAreNeverTaken) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  const int w = 1021, h = 1031;
  for (int run = 0; run < 4; ++run) {
    if (run == 1) satlab::gpu::set_lookback_epochs_left_for_testing(1);  // run 1 the last, run 2 restarts
    std::vector<uint8_t> img(size_t(w) * h);
    for (auto& b : img) b = uint8_t(rng());
    std::vector<uint32_t> want;
    satlab::sat_u8(img.data(), w, h, want);
    for (const Variant* v : sat_variants(DType::U8))
      expect_same(satlab::gpu::run_sat_u32(*v, img.data(), w, h, 1), want,
                  v->name + " run " + std::to_string(run));
    std::vector<float> imf(size_t(w) * h);
    for (auto& f : imf) f = u(rng);
    for (const Variant* v : sat_variants(DType::F32)) {
      const auto got = satlab::gpu::run_sat_f32(*v, imf.data(), w, h, 1);
      double worst = 0;  // check_sat: against float64, NaN (unwritten) counting as beyond the bound
      EXPECT_EQ(satlab::gpu::check_sat(DType::F32, 1, w, h, imf.data(), got.data(), &worst), "")
          << v->name << " run " << run;
      EXPECT_LE(worst, satlab::gpu::kFloatSatRelBound) << v->name << " run " << run;
    }
  }
}

// 16384^2 * 255 wraps around uint32 many times; box sums must still come out exact. Checked against the
// closed form S(x, y) = 255 (x+1)(y+1) mod 2^32 rather than a second 1 GiB CPU table.
TEST(Sat, WrapAroundKeepsEveryValueExactOn16384SquareOfWhite) {
  SKIP_WITHOUT_GPU();
  const int n = 16384;
  if (satlab::gpu::probe().total_memory < size_t(n) * n * 6) GTEST_SKIP() << "not enough GPU memory";
  if (size_t(n) * n > satlab::test::test_max_n()) GTEST_SKIP() << "larger than SATLAB_TEST_MAX_N";
  std::vector<uint8_t> img(size_t(n) * n, 255);
  for (const Variant* v : sat_variants(DType::U8)) {
    const auto got = satlab::gpu::run_sat_u32(*v, img.data(), n, n, 1);
    size_t bad = 0;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        bad += got[size_t(y) * n + x] != uint32_t(255u * uint32_t(x + 1) * uint32_t(y + 1));
    EXPECT_EQ(bad, 0u) << v->name;
    // A box deep inside the wrapped region: 1000 x 1000 pixels of 255.
    EXPECT_EQ(satlab::box_sum(got.data(), n, 1, 0, 15000, 15000, 15999, 15999), 255u * 1000u * 1000u) << v->name;
  }
}

// Float SAT: relative error against float64 of every element within the builders' bound (its derivation is
// beside kFloatSatRelBound in gpu/sat/sat_host.hpp; measured values in docs/performance.md, "Float SAT
// error").
constexpr double kFloatSatBound = satlab::gpu::kFloatSatRelBound;
TEST(Sat, FloatVariantsStayWithinTheirErrorBoundOfFloat64) {
  SKIP_WITHOUT_GPU();
  const auto vs = sat_variants(DType::F32);
  if (vs.empty()) GTEST_SKIP() << "no float SAT variant registered";
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (const Size s : {Size{1, 1}, Size{509, 263}, Size{1021, 1031}, Size{2048, 2048}}) {
    if (size_t(s.w) * size_t(s.h) > satlab::test::test_max_n()) continue;
    for (int ch : {1, 2, 4}) {
      satlab::ImageF im(s.w, s.h, ch);
      for (auto& f : im.data) f = u(rng);
      std::vector<double> want;
      satlab::sat_float(im, want);
      for (const Variant* v : vs) {
        const auto got = satlab::gpu::run_sat_f32(*v, im.data.data(), s.w, s.h, ch);
        double worst = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_FALSE(std::isnan(got[i])) << v->name << " element " << i;
          worst = std::max(worst, std::fabs(double(got[i]) - want[i]) / std::max(want[i], 1e-30));
        }
        std::printf("%s %dx%dx%d: max relative error vs float64 %.3g\n", v->name.c_str(), s.w, s.h, ch, worst);
        EXPECT_LE(worst, kFloatSatBound) << v->name << " " << s.w << "x" << s.h << "x" << ch;
      }
    }
  }
}

}  // namespace

namespace {

// The checker behind `satlab verify` and `satlab bench sat` (host code only, so it runs without a GPU
// too): core's own SAT passes, one wrong element, a poisoned (unwritten) float and a float beyond the
// bound are caught and located.
TEST(SatCheck, AcceptsCoresSatAndLocatesAWrongOrUnwrittenElement) {
  using satlab::gpu::check_sat;
  std::mt19937 rng(5);
  std::vector<uint8_t> px(size_t(37) * 23 * 4);
  for (auto& b : px) b = uint8_t(rng());
  satlab::ImageRGBA8 im(37, 23);
  im.data = px;
  std::vector<uint32_t> sat;
  satlab::sat_rgba8(im, sat);
  EXPECT_EQ(check_sat(DType::RGBA8, 4, 37, 23, px.data(), sat.data()), "");
  sat[size_t(5 * 37 + 11) * 4 + 2] += 1;
  EXPECT_EQ(check_sat(DType::RGBA8, 4, 37, 23, px.data(), sat.data()).rfind("1 of 3404 elements differ, first at (11, 5) channel 2", 0), 0u);

  satlab::ImageF f(19, 7, 2);
  for (auto& x : f.data) x = float(rng() % 1000) / 1000.f;
  std::vector<double> want;
  satlab::sat_float(f, want);
  std::vector<float> got(want.begin(), want.end());
  double worst = -1;
  EXPECT_EQ(check_sat(DType::F32, 2, 19, 7, f.data.data(), got.data(), &worst), "");
  EXPECT_LE(worst, satlab::gpu::kFloatSatRelBound);
  uint32_t poison = 0xABABABABu;  // what an unwritten element holds: a tiny negative float, not a NaN
  std::memcpy(&got[30], &poison, 4);
  EXPECT_NE(check_sat(DType::F32, 2, 19, 7, f.data.data(), got.data()).find("first at (15, 0) channel 0"), std::string::npos);
  got.assign(want.begin(), want.end());
  got.back() = float(want.back() * (1 + 4 * satlab::gpu::kFloatSatRelBound));
  EXPECT_NE(check_sat(DType::F32, 2, 19, 7, f.data.data(), got.data()), "");
}

}  // namespace
