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
  auto pipe = make_cpu_pipeline(2);
  Params p;
  p.focus = 0.5f;
  p.aperture = 30.f;
  pipe->set_image(img);
  pipe->set_depth(depth);
  pipe->set_params(p);
  pipe->run();
  std::vector<uint32_t> sat;
  sat_rgba8(img, sat);
  ImageRGBA8 ref = dof_blur(img, sat, coc_map(normalise_depth(depth), p));
  EXPECT_EQ(pipe->result().data, ref.data);
  EXPECT_NE(pipe->result().data, img.data);
  std::vector<std::string> names;
  for (const auto& t : pipe->timings()) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"reduce", "coc", "sat", "blur"}));
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
