// The tiled executor (core/tiled.hpp) through GPU pipelines against the whole-image GPU pipeline, bit for
// bit: the box filter and every DoF mode (with and without depth, layer counts, aperture shapes, highlights)
// at sizes that straddle tile edges, with several tile sizes and halos and with two workers; and the GPU
// pipeline given whole-frame statistics (no reduce stage, its own frame's statistics change nothing).
// SATLAB_TEST_MAX_N limits the image sizes (the sanitizer runs use a small one).
#include "core/tiled.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/pipeline.hpp"
#include "gpu/device.hpp"
#include "gpu_skip.hpp"
#include "tests/cpu/tiled_util.hpp"
#include "variant_test_util.hpp"

namespace {

using namespace satlab;
using namespace satlab::test;

std::unique_ptr<Pipeline> gpu_pipeline() {
  return gpu::make_pipeline();
}

// Sizes (w, h) allowed by SATLAB_TEST_MAX_N.
std::vector<std::pair<int, int>> allowed(const std::vector<std::pair<int, int>>& sizes) {
  std::vector<std::pair<int, int>> r;
  for (const auto& s : sizes)
    if (size_t(s.first) * size_t(s.second) <= test_max_n()) r.push_back(s);
  return r;
}

// Tiled through GPU pipelines at each tile size, with the halo tiled_halo asks for and a wider odd one, and
// with two workers, against the whole image through one GPU pipeline.
void expect_gpu_tiles_equal_whole(const Scene& s, const Params& p, bool with_depth,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& tiles) {
  const ImageF* depth = with_depth ? &s.depth : nullptr;
  const ImageRGBA8 want = whole(s.image, depth, p, gpu::make_pipeline());
  const uint32_t need = tiled_halo(p);
  for (const auto& t : tiles)
    for (const uint32_t halo : {need, need + 3})
      for (const int workers : {1, 2}) {
        SCOPED_TRACE(std::to_string(s.image.width) + "x" + std::to_string(s.image.height) +
                     (with_depth ? " with" : " without") + " depth, tiles " + std::to_string(t.first) + "x" +
                     std::to_string(t.second) + " halo " + std::to_string(halo) + ", " +
                     std::to_string(workers) + " workers");
        EXPECT_TRUE(
            same_pixels(tiled(s.image, depth, p, t.first, t.second, halo, workers, gpu_pipeline).out, want));
      }
}

TEST(GpuTiled, BoxFilterEqualsTheWholeImage) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Params p;
  p.filter = FilterKind::Box;
  for (const auto& wh : allowed({{1, 257}, {257, 1}, {257, 255}, {1031, 523}}))
    for (const int r : {0, 7, 60}) {
      p.box_radius = r;
      expect_gpu_tiles_equal_whole(make_scene(wh.first, wh.second, seed), p, false, {{64, 64}, {256, 129}});
    }
}

TEST(GpuTiled, GatherModesEqualTheWholeImage) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& wh : allowed({{3, 301}, {257, 255}, {641, 479}})) {
    const Scene s = make_scene(wh.first, wh.second, seed);
    for (const bool fractional : {false, true}) {
      Params p = dof_params("gather_box", 12.5f);
      p.fractional_radius = fractional;
      for (const bool d : {true, false}) expect_gpu_tiles_equal_whole(s, p, d, {{64, 64}, {127, 65}});
    }
    for (const char* m : {"gather_shape", "gather_linear"})
      for (const ApertureShape a : {ApertureShape::Square, ApertureShape::Disc, ApertureShape::Polygon}) {
        Params p = dof_params(m, 9.f);
        p.aperture_shape = a;
        SCOPED_TRACE(std::string(m) + " " + to_string(a));
        expect_gpu_tiles_equal_whole(s, p, true, {{64, 64}, {127, 65}});
      }
  }
}

// The occlusion-aware modes' halos are dof::fill_reach and more (their fills): tiles cut images over twice
// that, and an image smaller than a tile.
TEST(GpuTiled, LayeredAndSpreadEqualTheWholeImage) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& wh : allowed({{1301, 1187}, {2053, 7}, {300, 200}})) {
    const Scene s = make_scene(wh.first, wh.second, seed);
    const std::vector<std::pair<uint32_t, uint32_t>> tiles = {{128, 128}, {257, 255}};
    for (const int layers : {2, 6, 8}) {
      Params p = dof_params("layered", 16.f);
      p.dof_layers = layers;
      p.aperture_shape = layers == 6 ? ApertureShape::Polygon : ApertureShape::Disc;
      SCOPED_TRACE("layered, " + std::to_string(layers) + " layers");
      expect_gpu_tiles_equal_whole(s, p, true, tiles);
    }
    Params p = dof_params("spread", 16.f);
    for (const ApertureShape a : {ApertureShape::Disc, ApertureShape::Square}) {
      p.aperture_shape = a;
      SCOPED_TRACE(std::string("spread ") + to_string(a));
      expect_gpu_tiles_equal_whole(s, p, true, tiles);
    }
    expect_gpu_tiles_equal_whole(s, p, false, tiles);
  }
}

TEST(GpuTiled, HighlightsEqualTheWholeImageWhileUnderTheCap) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& wh : allowed({{331, 247}})) {
    const Scene s = make_scene(wh.first, wh.second, seed);
    for (const char* m : {"gather_box", "gather_linear", "spread"}) {
      Params p = dof_params(m, 8.f);
      p.highlights = true;
      SCOPED_TRACE(m);
      expect_gpu_tiles_equal_whole(s, p, true, {{96, 80}});
      EXPECT_TRUE(tiled(s.image, &s.depth, p, 96, 80, tiled_halo(p), 1, gpu_pipeline).report.exact);
    }
  }
}

// Given its own frame's statistics the GPU pipeline gives the same result and normalised depth, and runs
// no reduce stage (its normalise stage uploads the range); taken back, the frame's own again.
TEST(GpuTiled, AFramesOwnStatisticsChangeNothing) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Scene s = make_scene(211, 173, seed);
  const uint32_t w = uint32_t(s.depth.width), h = uint32_t(s.depth.height);
  const DepthRowSource src{w, h, [&](uint32_t y0, uint32_t y1, float* out, size_t stride) {
                          for (uint32_t y = y0; y < y1; ++y)
                            std::memcpy(out + (y - y0) * stride, s.depth.data.data() + size_t(y) * w, w * 4);
                        },
                        {}};
  for (const char* m : {"gather_shape", "layered", "spread"}) {
    const Params p = dof_params(m, 10.f);
    auto pipe = gpu::make_pipeline();
    pipe->set_every_stage(true);  // every frame lists the same stages
    pipe->set_image(s.image);
    pipe->set_depth(s.depth);
    pipe->set_params(p);
    pipe->run();
    const ImageRGBA8 own = pipe->result();
    const ImageF own_depth = pipe->depth_normalised();
    pipe->set_frame_stats(depth_frame_stats(src, 64, &p));
    pipe->run();
    EXPECT_TRUE(same_pixels(pipe->result(), own)) << m;
    EXPECT_EQ(
        std::memcmp(pipe->depth_normalised().data.data(), own_depth.data.data(), own_depth.data.size() * 4),
        0)
        << m;
    std::vector<std::string> names;
    for (const StageTiming& t : pipe->timings())
      if (t.parent.empty()) names.push_back(t.name);
    EXPECT_EQ(std::count(names.begin(), names.end(), "reduce"), 0) << m;
    EXPECT_EQ(std::count(names.begin(), names.end(), "normalise"), 1) << m;
    pipe->set_frame_stats(FrameStats{});
    pipe->run();
    pipe->run();
    EXPECT_TRUE(same_pixels(pipe->result(), own)) << m;
  }
}

// A frame given as rows in the caller's memory (set_image_rows, set_depth_rows: rows out of order, in two
// stretches of different strides and single rows, as a ring's wrap gives them), pinned or not, filters to
// what set_image and set_depth give; read_result into pinned and unpinned rows gives the same pixels. The
// outputs are poisoned first.
TEST(GpuTiled, FramesFromRowsPinnedOrNotEqualFramesFromImages) {
  SKIP_WITHOUT_GPU();
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& wh : allowed({{1, 1}, {1, 37}, {61, 1}, {211, 173}, {517, 263}})) {
    const Scene s = make_scene(wh.first, wh.second, seed);
    const int w = s.image.width, h = s.image.height;
    // Copies of the image and depth laid out as rows: the first half 3 rows of padding apart, the second
    // half wrapped to the front of the buffer, a pitch of w + 5 pixels.
    const size_t pitch = size_t(w) + 5, split = size_t(h) / 2;
    std::vector<uint8_t> img(pitch * 4 * size_t(h) * 3 + 64, 0xCD);
    std::vector<float> dep(pitch * size_t(h) * 3 + 16, -7.f);
    const auto img_row = [&](int y) -> uint8_t* {
      const size_t slot = size_t(y) < split ? size_t(h) + size_t(y) * 3 : size_t(y) - split;
      return img.data() + slot * pitch * 4;
    };
    const auto dep_row = [&](int y) -> float* {
      const size_t slot = size_t(y) < split ? size_t(h) + size_t(y) * 3 : size_t(y) - split;
      return dep.data() + slot * pitch;
    };
    for (int y = 0; y < h; ++y) {
      std::memcpy(img_row(y), s.image.px(0, y), size_t(w) * 4);
      std::memcpy(dep_row(y), s.depth.data.data() + size_t(y) * size_t(w), size_t(w) * 4);
    }
    for (const char* m : {"box", "spread", "layered"}) {
      const bool box = std::string(m) == "box";
      Params p = box ? Params{} : dof_params(m, 9.f);
      if (box) p.filter = FilterKind::Box, p.box_radius = 5;
      auto whole_pipe = gpu::make_pipeline();
      const ImageRGBA8 want = whole(s.image, box ? nullptr : &s.depth, p, std::move(whole_pipe));
      for (const bool pin : {false, true}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + m + (pin ? " pinned" : " pageable"));
        auto pipe = gpu::make_pipeline();
        std::vector<uint8_t> out(pitch * 4 * size_t(h), 0xEE);
        if (pin) {
          ASSERT_TRUE(pipe->pin_host(img.data(), img.size()));
          ASSERT_TRUE(pipe->pin_host(dep.data(), dep.size() * 4));
          ASSERT_TRUE(pipe->pin_host(out.data(), out.size()));
        }
        pipe->set_params(p);
        ASSERT_TRUE(pipe->set_image_rows(FrameRows{w, h, [&](int y) -> const void* { return img_row(y); }}));
        if (!box) ASSERT_TRUE(pipe->set_depth_rows(FrameRows{w, h, [&](int y) -> const void* { return dep_row(y); }}));
        pipe->run();
        // The result's rows pitch pixels apart; the bytes past each row stay poisoned.
        pipe->read_result(PixelRect{0, 0, w, h}, out.data(), pitch * 4);
        ImageRGBA8 got(w, h);
        for (int y = 0; y < h; ++y) {
          std::memcpy(got.px(0, y), out.data() + size_t(y) * pitch * 4, size_t(w) * 4);
          EXPECT_EQ(out[size_t(y) * pitch * 4 + size_t(w) * 4], 0xEE);
        }
        EXPECT_TRUE(same_pixels(got, want));
        // A sub-region straight into the pinned (or pageable) rows.
        if (w > 2 && h > 2) {
          std::fill(out.begin(), out.end(), uint8_t(0xEE));
          pipe->read_result(PixelRect{1, 1, w - 1, h - 1}, out.data(), pitch * 4);
          for (int y = 1; y < h - 1; ++y)
            EXPECT_EQ(std::memcmp(out.data() + size_t(y - 1) * pitch * 4, want.px(1, y), size_t(w - 2) * 4), 0);
        }
        if (pin) {
          pipe->unpin_host(img.data());
          pipe->unpin_host(dep.data());
          pipe->unpin_host(out.data());
        }
      }
    }
  }
}

}  // namespace
