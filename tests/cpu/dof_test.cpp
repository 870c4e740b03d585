#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"

using namespace satlab;

TEST(Coc, ZeroOnTheFocusPlaneAndSignedAroundIt) {
  Params p;
  p.focus = 0.4f;
  EXPECT_EQ(coc_from_depth(0.4f, p), 0.f);
  EXPECT_GT(coc_from_depth(0.1f, p), 0.f);  // nearer than focus: positive
  EXPECT_LT(coc_from_depth(0.9f, p), 0.f);  // behind: negative
}

TEST(Coc, ThinLensFormulaAndClamp) {
  Params p;
  p.focus = 0.f;  // z_focus = near = 1
  p.near_depth = 1.f;
  p.far_depth = 5.f;
  p.aperture = 10.f;
  p.max_radius = 100.f;
  // d = 1 -> z = 5: c = 10 * (1/5 - 1) = -8
  EXPECT_NEAR(coc_from_depth(1.f, p), -8.f, 1e-5f);
  p.max_radius = 3.f;
  EXPECT_EQ(coc_from_depth(1.f, p), -3.f);
}

TEST(Coc, DisparityMapsBrightToNear) {
  Params p;
  p.disparity = true;
  p.focus = 0.f;  // focus at the far plane
  p.near_depth = 1.f;
  p.far_depth = 4.f;
  p.aperture = 4.f;
  p.max_radius = 100.f;
  // d = 1 -> 1/z = 1/near = 1: c = 4 * (1 - 1/4) = 3
  EXPECT_NEAR(coc_from_depth(1.f, p), 3.f, 1e-6f);
}

// Focus range t: every depth in [focus - t, focus + t] is sharp; outside, c = K (1/z - 1/z_edge) from the
// nearer edge, continuous there, with the thin lens's sign; t = 0 is the plain thin lens bit for bit.
TEST(Coc, FocusRangeKeepsTheBandSharpAndGrowsFromItsEdges) {
  for (const bool disparity : {false, true}) {
    SCOPED_TRACE(disparity ? "disparity" : "depth");
    Params p;
    p.disparity = disparity;
    p.focus = 0.4f, p.aperture = 40.f, p.max_radius = 500.f;
    set_focus_range(p, 0.15f);
    const float lo = p.focus - p.focus_range, hi = p.focus + p.focus_range;
    for (int i = 0; i <= 1000; ++i) {
      const float d = lo + (hi - lo) * float(i) / 1000.f;
      if (d >= lo && d <= hi) {
        ASSERT_EQ(coc_from_depth(d, p), 0.f) << "d " << d;
      }
    }
    EXPECT_EQ(coc_from_depth(lo, p), 0.f);
    EXPECT_EQ(coc_from_depth(hi, p), 0.f);
    // Just outside the band the CoC is tiny (continuous), and signed like the thin lens's: > 0 nearer than
    // the band (depth: smaller d; disparity: larger d).
    const float near = disparity ? -1.f : 1.f;
    const float before = lo - 1e-4f, after = hi + 1e-4f;
    EXPECT_GT(near * coc_from_depth(before, p), 0.f);
    EXPECT_LT(near * coc_from_depth(before, p), 0.01f);
    EXPECT_LT(near * coc_from_depth(after, p), 0.f);
    EXPECT_GT(near * coc_from_depth(after, p), -0.01f);
    for (const float step : {1e-3f, 1e-2f}) {  // |c| grows with the distance from the edge: Lipschitz there
      EXPECT_LT(std::fabs(coc_from_depth(lo - step, p)), 40.f * step);
      EXPECT_LT(std::fabs(coc_from_depth(hi + step, p)), 40.f * step);
    }
    // Outside: the thin lens focused on the nearer edge, exactly.
    for (const float d : {0.f, 0.1f, 0.2499f, 0.5501f, 0.8f, 1.f}) {
      Params edge = p;
      set_focus_range(edge, 0.f);
      edge.focus = d < p.focus ? lo : hi;
      EXPECT_EQ(coc_from_depth(d, p), coc_from_depth(d, edge)) << "d " << d;
      EXPECT_NE(coc_from_depth(d, p), 0.f) << "d " << d;
      Params plain = p;
      set_focus_range(plain, 0.f);  // the band takes some blur off every depth, never adds any
      EXPECT_LT(std::fabs(coc_from_depth(d, p)), std::fabs(coc_from_depth(d, plain))) << "d " << d;
    }
    // The CoC map applies the same band; a NaN depth still gives the bound.
    ImageF depth(5, 1, 1);
    depth.data = {0.f, lo, p.focus, hi, std::nanf("")};
    const ImageF c = coc_map(depth, p);
    EXPECT_EQ(c.data[0], coc_from_depth(0.f, p));
    EXPECT_EQ(c.data[1], 0.f);
    EXPECT_EQ(c.data[2], 0.f);
    EXPECT_EQ(c.data[3], 0.f);
    EXPECT_EQ(c.data[4], -p.max_radius);
  }
}

TEST(Coc, FocusRangeOfZeroIsThePlainThinLens) {
  Params p;
  p.focus = 0.3f, p.aperture = 40.f;
  EXPECT_EQ(p.focus_range, 0.f);  // the default
  for (int i = 0; i <= 100; ++i) {
    const float d = float(i) / 100.f;
    // Params' documented formula (FollowsTheDocumentedFloatOperationOrderBitForBit checks every bit).
    const float z = p.near_depth + d * (p.far_depth - p.near_depth);
    const float zf = p.near_depth + p.focus * (p.far_depth - p.near_depth);
    EXPECT_NEAR(coc_from_depth(d, p),
                std::fmax(-p.max_radius, std::fmin(p.max_radius, p.aperture * (1.f / z - 1.f / zf))), 1e-4f);
  }
  EXPECT_GT(coc_from_depth(0.29f, p), 0.f);  // no band: just off focus is blurred
}

TEST(Coc, FocusRangeOutsideZeroToOneIsRefused) {
  for (float Params::*field : {&Params::focus_range, &Params::focus_range_far, &Params::focus_ramp_near,
                               &Params::focus_ramp_far}) {
    Params p;
    for (const float t : {-0.01f, 1.01f, std::nanf("")}) {
      p.*field = t;
      EXPECT_THROW(validate(p), Error) << t;
    }
    p.*field = 1.f;
    EXPECT_NO_THROW(validate(p));
  }
}

// The four-edged range: NI = FI = focus with no ramps is the plain lens, the +-T form is the four edges
// (T, T, no ramps), the ramps scale the inner edge's CoC by the way out, and beyond the outer edges the
// CoC is the symmetric band's.
TEST(Coc, FourEdgedFocusRange) {
  Params p;
  p.focus = 0.45f, p.aperture = 60.f, p.max_radius = 500.f;
  Params four = p;
  set_focus_range(four, FocusRange{p.focus, p.focus, p.focus, p.focus});
  for (int i = 0; i <= 200; ++i) EXPECT_EQ(coc_from_depth(i / 200.f, four), coc_from_depth(i / 200.f, p)) << i;

  Params sym = p, edges = p;
  set_focus_range(sym, 0.1f);
  const FocusRange r = focus_range_of(sym);
  EXPECT_EQ(r.near_outer, r.near_inner);
  EXPECT_EQ(r.far_outer, r.far_inner);
  set_focus_range(edges, r);
  for (int i = 0; i <= 200; ++i) EXPECT_EQ(coc_from_depth(i / 200.f, edges), coc_from_depth(i / 200.f, sym)) << i;

  Params ramped = p;
  set_focus_range(ramped, FocusRange{0.2f, 0.4f, 0.5f, 0.8f});
  EXPECT_EQ(coc_from_depth(0.42f, ramped), 0.f);
  EXPECT_EQ(coc_from_depth(0.5f, ramped), 0.f);
  Params band = ramped;  // the same inner edges without ramps
  band.focus_ramp_near = band.focus_ramp_far = 0.f;
  for (const float d : {0.3f, 0.35f, 0.6f, 0.65f, 0.7f}) {
    const float way = d < 0.4f ? (0.4f - d) / 0.2f : (d - 0.5f) / 0.3f;
    EXPECT_NEAR(coc_from_depth(d, ramped), coc_from_depth(d, band) * way, 1e-5f) << d;
    EXPECT_LT(std::fabs(coc_from_depth(d, ramped)), std::fabs(coc_from_depth(d, band))) << d;
  }
  for (const float d : {0.f, 0.1f, 0.2f, 0.8f, 0.9f, 1.f}) EXPECT_EQ(coc_from_depth(d, ramped), coc_from_depth(d, band)) << d;
  // Monotone away from the band on both sides.
  float last = 0.f;
  for (int i = 0; i <= 100; ++i) {
    const float c = coc_from_depth(0.4f - 0.4f * i / 100.f, ramped);
    EXPECT_GE(c, last);
    last = c;
  }
}

TEST(Coc, FocusRangeOutOfOrderIsRefusedWithTheOrderExpected) {
  Params p;
  p.focus = 0.5f;
  for (const FocusRange r : {FocusRange{0.3f, 0.2f, 0.6f, 0.7f}, FocusRange{0.1f, 0.2f, 0.4f, 0.7f},
                             FocusRange{0.1f, 0.6f, 0.7f, 0.8f}, FocusRange{0.1f, 0.2f, 0.7f, 0.6f}}) {
    Params q = p;
    try {
      set_focus_range(q, r);
      ADD_FAILURE() << "accepted " << r.near_outer << "," << r.near_inner << "," << r.far_inner << "," << r.far_outer;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("near outer <= near inner <= focus <= far inner <= far outer"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(q.focus_range, p.focus_range);  // unchanged
  }
  EXPECT_THROW(parse_focus_range("0.1,0.2,0.3", 0.5f), Error);
  EXPECT_THROW(parse_focus_range("0.1,x,0.3,0.4", 0.5f), Error);
  EXPECT_THROW(parse_focus_range("", 0.5f), Error);
  EXPECT_THROW(parse_focus_range("-0.1", 0.5f), Error);
  const FocusRange r = parse_focus_range("0.1,0.2,0.6,0.9", 0.5f);
  EXPECT_EQ(r.near_outer, 0.1f);
  EXPECT_EQ(r.far_outer, 0.9f);
  const FocusRange t = parse_focus_range("0.25", 0.5f);
  EXPECT_EQ(t.near_inner, 0.25f);
  EXPECT_EQ(t.far_inner, 0.75f);
}

TEST(Reduce, MinMaxWithNegativeValues) {
  std::vector<float> v(10007);
  std::mt19937 rng(test::fresh_seed());
  std::uniform_real_distribution<float> u(-1000.f, 1000.f);
  for (auto& x : v) x = u(rng);
  v[4711] = -5000.f;
  v[17] = 7000.f;
  for (int t : {1, 2, 5}) {
    MinMax m = minmax_reduce(v.data(), v.size(), t);
    EXPECT_EQ(m.min, -5000.f);
    EXPECT_EQ(m.max, 7000.f);
  }
  EXPECT_THROW(minmax_reduce(v.data(), 0), Error);
}

TEST(Reduce, IntegerSumIsExactPast32Bits) {
  std::vector<int32_t> v(1 << 20, 1 << 30);
  v[3] = -7;
  EXPECT_EQ(sum_reduce(v.data(), v.size()), int64_t(1 << 30) * ((1 << 20) - 1) - 7);
}

TEST(Scan, InclusiveAndExclusiveWrapAround) {
  std::vector<uint32_t> in = {0xffffffffu, 2, 3}, out(3);
  inclusive_scan(in.data(), out.data(), 3);
  EXPECT_EQ(out, (std::vector<uint32_t>{0xffffffffu, 1, 4}));
  exclusive_scan(in.data(), out.data(), 3);
  EXPECT_EQ(out, (std::vector<uint32_t>{0, 0xffffffffu, 1}));
}

TEST(Depth, NormalisedToUnitRange) {
  ImageF raw(3, 1, 1);
  raw.data = {2.f, 4.f, 3.f};
  ImageF d = normalise_depth(raw);
  EXPECT_EQ(d.data, (std::vector<float>{0.f, 1.f, 0.5f}));
  raw.data = {3.f, 3.f, 3.f};
  EXPECT_EQ(normalise_depth(raw).data, (std::vector<float>{0.f, 0.f, 0.f}));
}

TEST(CpuPipeline, DofFrameEqualsTheReferenceStages) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  ImageRGBA8 img = test::random_image(97, 61, seed);
  ImageF depth(97, 61, 1);
  for (int y = 0; y < 61; ++y)
    for (int x = 0; x < 97; ++x) depth.at(x, y) = 10.f + float(x);  // a ramp: sharp column at the focus
  Params p;
  p.focus = 0.5f;
  p.aperture = 30.f;
  p.dof_mode = "gather_box";  // the stages of the box gather (the shaped modes: tests/cpu/dof_modes_test.cpp)
  const auto pipe = test::ran_cpu_pipeline(img, depth, p);
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  ImageRGBA8 ref = dof_blur(img, sat, coc_map(normalise_depth(depth), p));
  EXPECT_EQ(pipe->result().data, ref.data);
  EXPECT_NE(pipe->result().data, img.data);
  std::vector<std::string> names;
  for (const auto& t : pipe->timings()) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"reduce", "coc", "dof", "sat", "blur"}));
}

TEST(CpuPipeline, BadInputsAreRefusedAndStateKept) {
  auto pipe = make_cpu_pipeline();
  EXPECT_THROW(pipe->run(), Error);
  EXPECT_THROW(pipe->set_image(ImageRGBA8()), Error);
  ImageRGBA8 img = test::random_image(16, 8, 3);
  pipe->set_image(img);
  EXPECT_THROW(pipe->set_depth(ImageF(15, 8, 1)), Error);
  Params bad;
  bad.near_depth = -1.f;
  EXPECT_THROW(pipe->set_params(bad), Error);
  Params box;
  box.filter = FilterKind::Box;
  box.box_radius = 0;
  pipe->set_params(box);
  pipe->run();
  EXPECT_EQ(pipe->result().data, img.data);
}

TEST(Coc, FollowsTheDocumentedFloatOperationOrderBitForBit) {
  // The sequence a CUDA kernel reproduces with __fsub_rn/__fmul_rn/__fadd_rn/__fdiv_rn (reference.cpp).
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (int i = 0; i < 20000; ++i) {
    Params p;
    p.disparity = i % 2 == 1;
    p.near_depth = 0.1f + 5.f * u(rng);
    p.far_depth = p.near_depth + 0.01f + 50.f * u(rng);
    p.focus = u(rng);
    p.aperture = 200.f * u(rng);
    p.max_radius = 64.f * u(rng);
    const float d = u(rng);
    auto inv = [&](float x) {
      volatile float a, b, s, t;
      if (p.disparity) {
        a = 1.0f / p.far_depth;
        b = 1.0f / p.near_depth;
        s = b - a;
        t = x * s;
        return float(a + t);
      }
      s = p.far_depth - p.near_depth;
      t = x * s;
      volatile float z = p.near_depth + t;
      return 1.0f / z;
    };
    volatile float diff = inv(d) - inv(p.focus);
    volatile float c = p.aperture * diff;
    const float expect = std::fmin(std::fmax(c, -p.max_radius), p.max_radius);
    ASSERT_EQ(coc_from_depth(d, p), expect) << "d " << d << " disparity " << p.disparity;
  }
}

TEST(Coc, ClampsToPlusMaxRadiusInFrontAndMinusBehind) {
  Params p;
  p.focus = 0.5f;
  p.aperture = 1e6f;
  p.max_radius = 9.f;
  EXPECT_EQ(coc_from_depth(0.f, p), 9.f);
  EXPECT_EQ(coc_from_depth(1.f, p), -9.f);
  p.max_radius = 0.f;
  EXPECT_EQ(blur_radius(coc_from_depth(0.f, p)), 0);
}

TEST(Coc, BlurRadiusRoundsHalfAwayFromZeroAndStaysInRange) {
  EXPECT_EQ(blur_radius(0.49999997f), 0);  // float(|c| + 0.5) would round this up to 1
  EXPECT_EQ(blur_radius(1.5f), 2);
  EXPECT_EQ(blur_radius(-1.5f), 2);
  EXPECT_EQ(blur_radius(1e30f), kMaxBlurRadius);
  EXPECT_EQ(blur_radius(std::nanf("")), 0);
}

TEST(Reduce, FloatSumAccumulatesInDouble) {
  std::vector<float> v(1 << 20, 0.1f);
  v[0] = -3.f;
  const double expect = double(0.1f) * double((1 << 20) - 1) - 3.0;
  for (int t : {1, 2, 3}) EXPECT_NEAR(sum_reduce(v.data(), v.size(), t), expect, 1e-6);
  EXPECT_EQ(sum_reduce(v.data(), 0), 0.0);
}

TEST(Reduce, MoreThreadsThanElements) {
  std::vector<float> v = {-2.f, 5.f, -7.f};
  MinMax m = minmax_reduce(v.data(), v.size(), 16);
  EXPECT_EQ(m.min, -7.f);
  EXPECT_EQ(m.max, 5.f);
  std::vector<int32_t> w = {-4, 9};
  EXPECT_EQ(sum_reduce(w.data(), w.size(), 16), 5);
}

TEST(Scan, RandomArraysMatchARunningSum) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (size_t n : {size_t(1), size_t(2), size_t(1000), size_t(65537)}) {
    std::vector<uint32_t> in(n), inc(n), exc(n);
    for (auto& v : in) v = rng();
    inclusive_scan(in.data(), inc.data(), n);
    exclusive_scan(in.data(), exc.data(), n);
    uint32_t s = 0;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(exc[i], s) << i;
      s += in[i];
      ASSERT_EQ(inc[i], s) << i;
    }
  }
}

TEST(CpuPipeline, DofWithoutDepthMapKeepsTheImageSharp) {
  ImageRGBA8 img = test::random_image(40, 30, test::fresh_seed());
  auto pipe = make_cpu_pipeline();
  Params p;
  p.aperture = 500.f;
  pipe->set_image(img);
  pipe->set_params(p);
  pipe->run();
  EXPECT_EQ(pipe->result().data, img.data);
  for (float c : pipe->coc().data) ASSERT_EQ(c, 0.f);
}

TEST(CpuPipeline, BoxFilterRunsOnlySatAndBlurWithTheirBytes) {
  ImageRGBA8 img = test::random_image(33, 21, test::fresh_seed());
  auto pipe = make_cpu_pipeline(3);
  Params p;
  p.filter = FilterKind::Box;
  p.box_radius = 3;
  pipe->set_image(img);
  pipe->set_params(p);
  for (int frame = 0; frame < 2; ++frame) {  // the same stages every frame
    pipe->run();
    ASSERT_EQ(pipe->timings().size(), 2u);
    EXPECT_EQ(pipe->timings()[0].name, "sat");
    EXPECT_EQ(pipe->timings()[0].bytes, 20.0 * 33 * 21);
    EXPECT_EQ(pipe->timings()[1].name, "blur");
    EXPECT_GE(pipe->timings()[1].ms, 0.0);
  }
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  EXPECT_EQ(pipe->result().data, box_blur(img, sat, 3).data);
}

TEST(CpuPipeline, AbsurdSizesAreRefusedBeforeAllocating) {
  auto pipe = make_cpu_pipeline();
  ImageRGBA8 huge;  // declares 100000 x 100000 without any pixels behind it
  huge.width = 100000;
  huge.height = 100000;
  try {
    pipe->set_image(huge);
    FAIL() << "accepted a 100000x100000 image";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("100000x100000"), std::string::npos) << e.what();
  }
  ImageRGBA8 short_buffer;
  short_buffer.width = 8;
  short_buffer.height = 8;
  short_buffer.data.resize(10);
  EXPECT_THROW(pipe->set_image(short_buffer), Error);
  EXPECT_THROW(pipe->run(), Error);  // nothing was accepted
}

TEST(Reduce, NansAreSkippedWhateverTheSplit) {
  // A NaN at the start of a thread's chunk must not become that chunk's min or max.
  std::vector<float> v(131);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 17) - 5.f;
  for (size_t i = 0; i < v.size(); i += 9) v[i] = NAN;
  v[0] = NAN;
  for (int t : {1, 2, 3, 7, 16, 131}) {
    const MinMax m = minmax_reduce(v.data(), v.size(), t);
    EXPECT_EQ(m.min, -5.f) << t << " threads";
    EXPECT_EQ(m.max, 11.f) << t << " threads";
  }
  std::vector<float> all(5, NAN);
  const MinMax m = minmax_reduce(all.data(), all.size(), 2);
  EXPECT_TRUE(std::isnan(m.min) && std::isnan(m.max));
}
