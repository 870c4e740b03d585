// Shared by the tiled executor's CPU and GPU tests (tests/cpu/tiled_test.cpp, tests/gpu/tiled_test.cpp): a
// scene with depth edges and highlights, run_tiled over in-memory rows (checking that the source is read once
// in order and the sink fed in order), and a pixel comparison that says where and by how much.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "core/pipeline.hpp"
#include "core/tiled.hpp"
#include "tests/cpu/test_util.hpp"

namespace satlab::test {

// An image with structure (noise, bright spots) and a depth map of planes, steps and noise: near objects
// over a slanted background, so every mode meets depth edges, layers and occlusion.
struct Scene {
  ImageRGBA8 image;
  ImageF depth;
};

inline Scene make_scene(int w, int h, uint32_t seed) {
  Scene s{random_image(w, h, seed), ImageF(w, h, 1)};
  std::mt19937 rng(seed ^ 0x9e3779b9u);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  const float cx = float(w) * u(rng), cy = float(h) * u(rng),
              rad = 4.f + float(std::min(w, h)) * 0.3f * u(rng);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float d = 6.f + 3.f * float(x) / float(w) + 2.f * float(y) / float(h) + 0.2f * u(rng);
      if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < rad * rad) d = 1.5f + 0.1f * u(rng);  // a near disc
      if ((x / 7 + y / 5) % 11 == 0) d = 3.f;                                               // thin posts
      s.depth.at(x, y) = d;
      if (rng() % 53 == 0) {  // highlights
        uint8_t* px = s.image.px(x, y);
        px[0] = px[1] = px[2] = 255;
      }
    }
  return s;
}

inline Params dof_params(const std::string& mode, float max_radius) {
  Params p;
  p.filter = FilterKind::Dof;
  p.dof_mode = mode;
  p.max_radius = max_radius;
  p.focus = 0.35f;
  p.aperture = 60.f;
  return p;
}

// The whole image through one pipeline (the CPU backend with 2 threads unless given).
inline ImageRGBA8 whole(const ImageRGBA8& img, const ImageF* depth, const Params& p,
                        std::unique_ptr<Pipeline> pipe = nullptr) {
  if (!pipe) pipe = make_cpu_pipeline(2);
  pipe->set_image(img);
  if (depth) pipe->set_depth(*depth);
  pipe->set_params(p);
  pipe->run();
  return pipe->result();
}

inline TilePlan plan_of(uint32_t tile_width, uint32_t tile_height, uint32_t halo) {
  TilePlan t;
  t.tile_width = tile_width, t.tile_height = tile_height, t.halo = halo;
  return t;
}

struct Tiled {
  ImageRGBA8 out;
  TiledReport report;
  int depth_passes = 0;
};

// run_tiled over in-memory rows, checking that the source is read once, in order, and the sink fed in order.
inline Tiled tiled(
    const ImageRGBA8& img, const ImageF* depth, const Params& p, uint32_t tw, uint32_t th, uint32_t halo,
    int workers = 1,
    const std::function<std::unique_ptr<Pipeline>()>& make = [] { return make_cpu_pipeline(1); }) {
  const uint32_t w = uint32_t(img.width), h = uint32_t(img.height);
  Tiled t;
  t.out = ImageRGBA8(img.width, img.height);
  uint32_t image_at = 0, depth_at = 0, written = 0;
  RowSource src{w, h, [&](uint32_t y0, uint32_t y1, uint8_t* d, size_t stride) {
                  EXPECT_EQ(y0, image_at) << "image rows out of order or read twice";
                  EXPECT_LE(y1, h);
                  image_at = y1;
                  for (uint32_t y = y0; y < y1; ++y)
                    std::memcpy(d + (y - y0) * stride, img.px(0, int(y)), w * 4);
                }};
  DepthRowSource dsrc{w, h, [&](uint32_t y0, uint32_t y1, float* d, size_t stride) {
                     if (y0 == 0) depth_at = 0, ++t.depth_passes;
                     EXPECT_EQ(y0, depth_at) << "depth rows out of order within a pass";
                     depth_at = y1;
                     for (uint32_t y = y0; y < y1; ++y)
                       std::memcpy(d + (y - y0) * stride, depth->data.data() + size_t(y) * w, w * 4);
                   },
                   {}};
  RowSink sink{[&](uint32_t n, const uint8_t* rows, size_t stride) {
    EXPECT_LE(written + n, h);
    for (uint32_t y = 0; y < n && written + y < h; ++y)
      std::memcpy(t.out.px(0, int(written + y)), rows + y * stride, w * 4);
    written += n;
  }};
  const TilePlan plan = plan_of(tw, th, halo);
  t.report = run_tiled(src, depth ? &dsrc : nullptr, p, plan, make, sink, workers);
  EXPECT_EQ(image_at, h) << "not every image row was read";
  EXPECT_EQ(written, h) << "not every result row was written";
  return t;
}

// The pixels where a and b differ: their count, the first, and the largest channel difference.
inline ::testing::AssertionResult same_pixels(const ImageRGBA8& a, const ImageRGBA8& b) {
  if (a.width != b.width || a.height != b.height) return ::testing::AssertionFailure() << "sizes differ";
  size_t n = 0;
  int first_x = -1, first_y = -1, worst = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x)
      if (std::memcmp(a.px(x, y), b.px(x, y), 4) != 0) {
        if (n++ == 0) first_x = x, first_y = y;
        for (int k = 0; k < 4; ++k)
          worst = std::max(worst, std::abs(int(a.px(x, y)[k]) - int(b.px(x, y)[k])));
      }
  if (n == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << n << " of " << a.pixels() << " pixels differ, the first at ("
                                       << first_x << ", " << first_y << "), by up to " << worst;
}

}  // namespace satlab::test
