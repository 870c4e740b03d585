// The GPU stereo matcher (gpu/depth/stereo.cu) against the CPU reference (core/stereo.cpp): bit-identical
// winners, raw and filled disparities on random pairs at odd sizes, on a pair with known disparity, with
// the disparities split over several stacked SATs, and through every SAT builder that takes 8-bit input.
#include "core/stereo.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu/depth/stereo_gpu.hpp"
#include "gpu/device.hpp"
#include "tests/stereo_pair.hpp"
#include "variant_test_util.hpp"
#include "gpu_skip.hpp"
#include "tests/cpu/test_util.hpp"

namespace {

using namespace satlab;

ImageRGBA8 random_image(int w, int h, std::mt19937& rng) {
  ImageRGBA8 img(w, h);
  for (auto& b : img.data) b = uint8_t(rng());
  return img;
}

// "" when identical (floats compared as bits), else the first difference.
std::string difference(const StereoResult& g, const StereoResult& c) {
  const size_t n = c.left_wta.size();
  if (g.left_wta.size() != n || g.raw.data.size() != n || g.disparity.data.size() != n) return "sizes differ";
  for (size_t i = 0; i < n; ++i) {
    if (g.left_wta[i] != c.left_wta[i])
      return "left winner at " + std::to_string(i) + ": " + std::to_string(g.left_wta[i]) + " vs " +
             std::to_string(c.left_wta[i]);
    if (g.right_wta[i] != c.right_wta[i])
      return "right winner at " + std::to_string(i) + ": " + std::to_string(g.right_wta[i]) + " vs " +
             std::to_string(c.right_wta[i]);
    if (std::memcmp(&g.raw.data[i], &c.raw.data[i], 4))
      return "raw at " + std::to_string(i) + ": " + std::to_string(g.raw.data[i]) + " vs " +
             std::to_string(c.raw.data[i]);
    if (std::memcmp(&g.disparity.data[i], &c.disparity.data[i], 4))
      return "filled at " + std::to_string(i) + ": " + std::to_string(g.disparity.data[i]) + " vs " +
             std::to_string(c.disparity.data[i]);
  }
  return "";
}

TEST(GpuStereo, MatchesTheCpuBitForBitOnRandomPairsAtOddSizes) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  struct Case {
    int w, h, D, r, wide;
  };
  for (const Case& k :
       {Case{1, 1, 1, 0, 56}, Case{1, 1, 5, 2, 3}, Case{37, 1, 9, 3, 56}, Case{1, 41, 4, 1, 0},
        Case{131, 67, 24, 4, 56}, Case{257, 129, 64, 7, 30}, Case{97, 31, 40, 15, 16},
        Case{640, 97, 128, 4, 56}, Case{300, 50, 33, 1, 140},
        // widths of whole 16-column groups (the box rows' 16-byte loads and stores), strips
        // of 32 rows split at odd heights, windows taller than the image
        Case{16, 3, 6, 4, 56}, Case{96, 71, 20, 4, 56}, Case{160, 33, 13, 15, 2}, Case{48, 65, 9, 0, 3}}) {
    if (size_t(k.w) * size_t(k.h) * size_t(k.D) > std::max<size_t>(test::test_max_n(), 24 * 1024)) continue;
    SCOPED_TRACE(std::to_string(k.w) + "x" + std::to_string(k.h) + " D " + std::to_string(k.D) + " r " +
                 std::to_string(k.r) + " wide " + std::to_string(k.wide));
    const ImageRGBA8 l = random_image(k.w, k.h, rng), r = random_image(k.w, k.h, rng);
    StereoParams p;
    p.disparities = k.D;
    p.window_radius = k.r;
    p.wide_radius = k.wide;
    for (bool fill : {true, false}) {
      p.fill_holes = fill;
      EXPECT_EQ(difference(gpu::stereo_match(l, r, p), stereo_match(l, r, p)), "");
    }
    // The other parameters reach the kernels: no census threshold, no uniqueness margin but an absolute
    // one, an exact left-right check.
    StereoParams q = p;
    q.census_threshold = 0, q.uniqueness = 0, q.min_margin = 5, q.lr_tolerance = 0;
    EXPECT_EQ(difference(gpu::stereo_match(l, r, q), stereo_match(l, r, q)), "");
  }
}

TEST(GpuStereo, MatchesTheCpuOnAPairWithKnownDisparityAcrossSeveralStacks) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const test::StereoPair s = test::make_stereo_pair(211, 113, 5, 19, seed);
  StereoParams p;
  p.disparities = 29;
  p.window_radius = 4;
  const StereoResult cpu = stereo_match(s.left, s.right, p);
  for (size_t stack : {size_t(0), size_t(211 * 113), size_t(211 * 113 * 3), size_t(211 * 113 * 7)}) {
    SCOPED_TRACE("stack pixels " + std::to_string(stack));
    gpu::set_stereo_stack_pixels_for_testing(stack);
    EXPECT_EQ(difference(gpu::stereo_match(s.left, s.right, p), cpu), "");
  }
  gpu::set_stereo_stack_pixels_for_testing(0);
}

TEST(GpuStereo, TheBoxRowsAndEveryEightBitSatBuilderGiveTheSameDisparities) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(7);
  const ImageRGBA8 l = random_image(203, 77, rng), r = random_image(203, 77, rng);
  StereoParams p;
  p.disparities = 17;
  p.window_radius = 5;
  p.wide_radius = 40;  // 81 x 11 x 62 < 2^16
  const StereoResult cpu = stereo_match(l, r, p);
  gpu::set_stereo_stack_pixels_for_testing(203 * 77 * 5);  // several stacks of 5 slices
  // SATLAB_TEST_OWN_SAT_ONLY=1 (the racecheck runs) leaves out the external baselines, as tests/gpu/sat_test
  // does.
  const char* own = std::getenv("SATLAB_TEST_OWN_SAT_ONLY");
  const bool own_only = own && *own && *own != '0';
  std::vector<std::string> names = {gpu::kStereoBoxRows};
  for (const Variant& v : gpu::variants()) {
    if (v.family != Family::Sat || (v.refuses && !v.refuses(size_t(203) * 77 * 5, DType::U8).empty()))
      continue;
    if (own_only && v.name.rfind("sat_", 0) != 0) continue;
    names.push_back(v.name);
  }
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_EQ(difference(gpu::stereo_match(l, r, p, name), cpu), "");
  }
  gpu::set_stereo_stack_pixels_for_testing(0);
}

TEST(GpuStereo, RefusesAnUnknownSatBuilderWithOneLine) {
  SKIP_WITHOUT_GPU();
  StereoParams p;
  EXPECT_THROW(gpu::stereo_match(ImageRGBA8(8, 8), ImageRGBA8(8, 8), p, "no_such_builder"), Error);
  EXPECT_THROW(gpu::stereo_match(ImageRGBA8(8, 8), ImageRGBA8(9, 8), p), Error);
}

}  // namespace
