// The GPU Pipeline backend against the CPU backend: normalised depth, CoC and the blurred result are
// bit-identical (dof and box filters, depth and disparity lenses, odd sizes, several frames).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "gpu/device.hpp"

namespace {

using namespace satlab;

#define SKIP_WITHOUT_GPU()                                                \
  do {                                                                    \
    if (!gpu::probe().available) GTEST_SKIP() << gpu::probe().reason;     \
  } while (0)

struct Scene {
  ImageRGBA8 image;
  ImageF depth;
};

Scene random_scene(int w, int h, std::mt19937& rng) {
  Scene s{ImageRGBA8(w, h), ImageF(w, h, 1)};
  for (auto& b : s.image.data) b = uint8_t(rng());
  std::uniform_real_distribution<float> u(-3.f, 70.f);
  for (auto& d : s.depth.data) d = u(rng);
  return s;
}

size_t count_diff(const std::vector<float>& a, const std::vector<float>& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], 4) != 0;
  return n;
}

TEST(GpuPipeline, DofFrameIsBitIdenticalToTheCpuBackend) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  struct Case {
    int w, h;
    bool disparity;
    float focus, aperture, max_radius;
  };
  for (const Case c : {Case{1, 1, false, 0.2f, 40.f, 24.f}, Case{333, 1, true, 0.7f, 300.f, 60.f},
                       Case{641, 479, false, 0.1f, 90.f, 33.5f}, Case{1920, 1080, true, 0.5f, 25.f, 12.f},
                       Case{257, 1031, false, 0.9f, 4000.f, 2047.f}}) {
    const Scene s = random_scene(c.w, c.h, rng);
    Params p;
    p.disparity = c.disparity, p.focus = c.focus, p.aperture = c.aperture, p.max_radius = c.max_radius;
    p.near_depth = 0.5f, p.far_depth = 40.f;
    for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
      pipe->set_image(s.image);
      pipe->set_depth(s.depth);
      pipe->set_params(p);
      pipe->run();
      pipe->run();  // a second frame reuses the SAT and depth
    }
    const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h);
    EXPECT_EQ(count_diff(gpu_pipe->depth_normalised().data, cpu_pipe->depth_normalised().data), 0u) << what;
    EXPECT_EQ(count_diff(gpu_pipe->coc().data, cpu_pipe->coc().data), 0u) << what;
    EXPECT_TRUE(gpu_pipe->result().data == cpu_pipe->result().data) << what;
    EXPECT_FALSE(gpu_pipe->timings().empty());
  }
}

TEST(GpuPipeline, BoxBlurIsBitIdenticalToTheCpuBackendAtEveryRadius) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(std::random_device{}());
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  const Scene s = random_scene(513, 301, rng);
  for (int r : {0, 1, 2, 7, 150, 600, 2047}) {
    Params p;
    p.filter = FilterKind::Box, p.box_radius = r;
    for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
      pipe->set_image(s.image);
      pipe->set_params(p);
      pipe->run();
    }
    EXPECT_TRUE(gpu_pipe->result().data == cpu_pipe->result().data) << "radius " << r;
  }
}

TEST(GpuPipeline, WithoutDepthTheDofFilterKeepsTheImageSharp) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(std::random_device{}());
  auto pipe = gpu::make_pipeline();
  const Scene s = random_scene(97, 55, rng);
  pipe->set_image(s.image);
  pipe->run();
  EXPECT_TRUE(pipe->result().data == s.image.data);
}

TEST(GpuPipeline, RejectsADepthMapOfTheWrongSizeAndRunWithoutImage) {
  SKIP_WITHOUT_GPU();
  auto pipe = gpu::make_pipeline();
  EXPECT_THROW(pipe->run(), Error);
  pipe->set_image(ImageRGBA8(10, 10));
  EXPECT_THROW(pipe->set_depth(ImageF(9, 10, 1)), Error);
}

}  // namespace
