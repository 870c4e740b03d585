// The GPU blur with fractional radii against the CPU backend: bit-identical results on random and smooth
// depth maps, odd sizes, and an all-255 image at the largest radii (box sums next to 2^32).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/pipeline.hpp"
#include "gpu/device.hpp"
#include "variant_test_util.hpp"
#include "gpu_skip.hpp"
#include "tests/cpu/test_util.hpp"

namespace {

using namespace satlab;

// Runs both backends on the same inputs and returns how many result bytes differ.
size_t gpu_cpu_difference(const ImageRGBA8& image, const ImageF& depth, const Params& p) {
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
    pipe->set_image(image);
    pipe->set_depth(depth);
    pipe->set_params(p);
    pipe->run();
  }
  const auto& a = gpu_pipe->result().data;
  const auto& b = cpu_pipe->result().data;
  if (a.size() != b.size()) return a.size() + b.size();
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

TEST(GpuBlur, FractionalRadiusIsBitIdenticalToTheCpuBackend) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  for (auto [w, h] : {std::pair{1, 1}, {333, 1}, {1, 257}, {641, 479}, {1920, 1080}}) {
    if (size_t(w) * size_t(h) > test::test_max_n()) continue;
    ImageRGBA8 image(w, h);
    for (auto& b : image.data) b = uint8_t(rng());
    ImageF random_depth(w, h, 1), ramp(w, h, 1);
    std::uniform_real_distribution<float> u(0.f, 50.f);
    for (auto& d : random_depth.data) d = u(rng);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) ramp.at(x, y) = float(x) + 0.37f * float(y);
    Params p;
    p.dof_mode = "gather_box";  // the box gather's fractional radius (the shaped modes ignore the option)
    p.fractional_radius = true;
    p.aperture = 70.f, p.max_radius = 31.7f;
    const std::string what = std::to_string(w) + "x" + std::to_string(h);
    EXPECT_EQ(gpu_cpu_difference(image, random_depth, p), 0u) << what << " random depth";
    EXPECT_EQ(gpu_cpu_difference(image, ramp, p), 0u) << what << " smooth depth";
  }
}

// White everywhere, radii 2046 + a fraction: box sums of 255 * 4095^2 wrap the uint32 SAT many times and
// the float means sit next to 255; every output must still be exactly 255 on both backends.
TEST(GpuBlur, FractionalRadiusKeepsAllWhiteAtTheLargestRadii) {
  SKIP_WITHOUT_GPU();
  const int w = 4301, h = 4103;
  if (size_t(w) * size_t(h) > test::test_max_n()) GTEST_SKIP() << "larger than SATLAB_TEST_MAX_N";
  ImageRGBA8 image(w, h);
  std::fill(image.data.begin(), image.data.end(), uint8_t(255));
  ImageF depth(w, h, 1);
  std::mt19937 rng(11);
  for (auto& d : depth.data) d = float(rng() % 1000);
  Params p;
  p.fractional_radius = true;
  p.aperture = 1e6f, p.max_radius = 2046.6f, p.focus = 0.f;
  p.dof_mode = "gather_box";  // radii past the shaped modes' 511
  auto gpu_pipe = gpu::make_pipeline();
  gpu_pipe->set_image(image);
  gpu_pipe->set_depth(depth);
  gpu_pipe->set_params(p);
  gpu_pipe->run();
  size_t not_white = 0;
  for (uint8_t b : gpu_pipe->result().data) not_white += b != 255;
  EXPECT_EQ(not_white, 0u);
  EXPECT_EQ(gpu_cpu_difference(image, depth, p), 0u);
}

}  // namespace
