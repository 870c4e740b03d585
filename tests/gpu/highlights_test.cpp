// Bokeh highlights on the GPU (gpu/filter/highlights.cu) against the CPU reference (core/highlights.cpp)
// through both pipelines: bit-identical results and equal stats (found, kept, far) at odd sizes, every
// mode and aperture, random images with clipped lights, all-255 images (cap hit), NaN depth, several
// frames in a row (the planes must come back cleared), and no highlights = highlights off.
// SATLAB_TEST_MAX_N limits the image sizes (the sanitizer runs use a small one).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "core/dof_modes.hpp"
#include "core/pipeline.hpp"
#include "gpu/device.hpp"
#include "variant_test_util.hpp"
#include "gpu_skip.hpp"
#include "tests/cpu/test_util.hpp"

namespace {

using namespace satlab;

struct Frame {
  ImageRGBA8 image;
  ImageF depth;
};

// Random colours, a fraction of them bright or clipped lights; smooth depth with steps, a few NaNs.
Frame light_frame(int w, int h, std::mt19937& rng, bool white) {
  Frame f{ImageRGBA8(w, h), ImageF(w, h, 1)};
  for (auto& b : f.image.data) b = white ? 255 : uint8_t(rng() % 160);
  if (!white)
    for (size_t i = 0; i < f.image.pixels(); ++i)
      if (rng() % 23 == 0)
        for (int c = 0; c < 3; ++c)
          f.image.data[i * 4 + c] = uint8_t(rng() % 3 == 0 ? 255 : 190 + rng() % 66);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  const float a = u(rng) * 0.05f, b = u(rng) * 0.05f;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) f.depth.at(x, y) = float(int(x * a + y * b) % 5) + 0.3f * u(rng);
  if (w * h > 4) f.depth.data[size_t(rng() % uint32_t(w * h))] = NAN;
  return f;
}

TEST(GpuHighlights, BitIdenticalToTheCpuReference) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;  // SATLAB_TEST_SEED=N replays a traced failure
  auto gpu_pipe = gpu::make_pipeline();
  auto cpu_pipe = make_cpu_pipeline();
  struct Case {
    int w, h;
    float max_radius;
    bool white;
    int cap;
  };
  int k = 0;
  for (const Case c :
       {Case{1, 1, 8.f, false, 65536}, Case{1, 1, 8.f, true, 1}, Case{1, 97, 12.f, false, 65536},
        Case{131, 1, 12.f, true, 100}, Case{61, 53, 20.f, true, 999}, Case{257, 130, 33.5f, false, 300},
        Case{641, 479, 60.f, false, 65536}, Case{333, 211, 300.f, false, 4096}}) {
    if (size_t(c.w) * size_t(c.h) > test::test_max_n()) continue;
    const Frame f = light_frame(c.w, c.h, rng, c.white);
    for (const DofMode& m : dof_modes()) {
      Params p;
      p.dof_mode = m.name;
      p.aperture_shape = ApertureShape(k % 3);
      p.blades = 5 + k % 4, p.blade_rotation = 11.f * float(k);
      p.max_radius = c.max_radius, p.aperture = 3.f * c.max_radius, p.focus = 0.3f;
      p.highlights = true;
      p.highlight_threshold = 0.4f + 0.1f * float(k % 5);
      p.highlight_gain = 1.f + float(k % 16);
      p.highlight_cap = c.cap;
      p.response_shoulder = k % 2 ? 0.4f : 0.f;  // plain sRGB and the ground truth's camera
      if (m.profile && k % 3 == 1) p.aperture_image = "star";  // a picture, turned in front of focus
      if (m.profile && k % 4 == 2) p.bokeh_profile = 0.8f, p.catadioptric = k % 8 == 2 ? 0.4f : 0.f;  // profiled sprites
      ++k;
      const std::string what = std::string(m.name) + " " + to_string(p.aperture_shape) + " " +
                               std::to_string(c.w) + "x" + std::to_string(c.h) + " cap " +
                               std::to_string(c.cap) + " shoulder " + std::to_string(p.response_shoulder) + " image " + p.aperture_image +
                               " profile " + std::to_string(p.bokeh_profile) + " hole " + std::to_string(p.catadioptric);
      for (Pipeline* pipe : {gpu_pipe.get(), cpu_pipe.get()}) {
        pipe->set_image(f.image);
        pipe->set_depth(f.depth);
        pipe->set_params(p);
      }
      cpu_pipe->run();
      for (int frame = 0; frame < 2; ++frame) {  // the second frame finds the planes cleared by the first
        gpu_pipe->run();
        const test::ByteDiff d = test::byte_diff(gpu_pipe->result(), cpu_pipe->result());
        std::string gathered;  // on a difference: the two backends' gathers there (highlights off)
        if (d.bad) {
          Params q = p;
          q.highlights = false;
          auto g2 = gpu::make_pipeline();
          auto c2 = make_cpu_pipeline();
          for (Pipeline* pipe : {g2.get(), c2.get()}) {
            pipe->set_image(f.image);
            pipe->set_depth(f.depth);
            pipe->set_params(q);
            pipe->run();
          }
          gathered = "; highlights off there: gpu " + std::to_string(int(g2->result().data[d.first])) + ", cpu " +
                     std::to_string(int(c2->result().data[d.first]));
        }
        EXPECT_EQ(d.bad, 0u) << what << " frame " << frame << ": " << d.message << gathered;
        const HighlightStats gs = gpu_pipe->highlight_stats(), cs = cpu_pipe->highlight_stats();
        ASSERT_TRUE(gs.valid) << what;
        EXPECT_EQ(gs.found, cs.found) << what;
        EXPECT_EQ(gs.kept, cs.kept) << what;
        EXPECT_EQ(gs.far, cs.far) << what;
        EXPECT_EQ(gs.cap, cs.cap) << what;
        if (c.white && c.w * c.h > c.cap) {
          EXPECT_TRUE(gs.cap_hit()) << what;
        }
      }
    }
  }
}

// No pixel passes the threshold: the frame equals the highlights-off frame.
TEST(GpuHighlights, NoHighlightsEqualsHighlightsOff) {
  SKIP_WITHOUT_GPU();
  test::SeededRng rng;
  auto pipe = gpu::make_pipeline();
  Frame f = light_frame(199, 101, rng, false);
  for (size_t i = 0; i < f.image.pixels(); ++i)
    f.image.data[i * 4 + 1] = std::min<uint8_t>(f.image.data[i * 4 + 1], 250);
  pipe->set_image(f.image);
  pipe->set_depth(f.depth);
  for (const DofMode& m : dof_modes()) {
    Params p;
    p.dof_mode = m.name;
    p.highlight_threshold = 1.f;
    pipe->set_params(p);
    pipe->run();
    const ImageRGBA8 off = pipe->result();
    p.highlights = true;
    pipe->set_params(p);
    pipe->run();
    EXPECT_TRUE(pipe->result().data == off.data) << m.name;
    EXPECT_EQ(pipe->highlight_stats().found, 0u) << m.name;
    p.highlights = false;  // and back: gather_box's SAT is of the unmasked image again
    pipe->set_params(p);
    pipe->run();
    EXPECT_TRUE(pipe->result().data == off.data) << m.name;
  }
}

}  // namespace
