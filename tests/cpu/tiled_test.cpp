// The tiled executor (core/tiled.hpp) against the whole-image CPU pipeline: bit for bit for the box filter
// and every DoF mode (with and without depth, layer counts, aperture shapes, highlights) at sizes that
// straddle tile edges, with several tile sizes and halos; the statistics passes against normalise_depth and
// depth_histogram on NaN, infinite and constant depth; the row source read once in order, the sink fed
// whole bands; the plan's budget; and why each mode's halo is as wide as it is.
#include "core/tiled.hpp"
#include "core/tile_frames.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/dof_spread.hpp"
#include "core/highlights.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"
#include "tiled_util.hpp"

using namespace satlab;
using namespace satlab::test;

namespace {

std::string size_name(int w, int h) {
  return std::to_string(w) + "x" + std::to_string(h);
}

// Tiled at each tile size with the halo tiled_halo asks for and a wider one, against the whole image.
void expect_tiles_equal_whole(const Scene& s, const Params& p, bool with_depth,
                              const std::vector<std::pair<uint32_t, uint32_t>>& tiles) {
  const ImageF* depth = with_depth ? &s.depth : nullptr;
  const ImageRGBA8 want = whole(s.image, depth, p);
  const uint32_t need = tiled_halo(p);
  for (const auto& t : tiles)
    for (const uint32_t halo : {need, need + 3}) {
      SCOPED_TRACE(size_name(s.image.width, s.image.height) + (with_depth ? " with" : " without") +
                   " depth, tiles " + size_name(int(t.first), int(t.second)) + " halo " +
                   std::to_string(halo));
      EXPECT_TRUE(same_pixels(tiled(s.image, depth, p, t.first, t.second, halo).out, want));
    }
}

TEST(Tiled, TheHaloIsEachFiltersSupport) {
  Params box;
  box.filter = FilterKind::Box;
  box.box_radius = 13;
  EXPECT_EQ(tiled_halo(box), 13u);
  Params p = dof_params("gather_box", 30.2f);
  EXPECT_EQ(tiled_halo(p), 31u);  // the fractional blend's second box: ceil
  p.max_radius = 2047.f;
  EXPECT_EQ(tiled_halo(p), 2047u);
  for (const char* m : {"gather_shape", "gather_linear"}) {
    p = dof_params(m, 30.2f);
    EXPECT_EQ(tiled_halo(p), 31u) << m;
  }
  // The fills' boxes: 4 max_radius, at least 16, at most kMaxShapedRadius.
  p = dof_params("layered", 3.f);
  EXPECT_EQ(tiled_halo(p), 16u);
  p.max_radius = 30.f;
  EXPECT_EQ(tiled_halo(p), 120u);
  p.max_radius = 200.f;
  EXPECT_EQ(tiled_halo(p), uint32_t(dof::kMaxShapedRadius));
  p = dof_params("spread", 3.f);
  EXPECT_EQ(tiled_halo(p), uint32_t(16 + dof::kFillBlock - 1));
  p.max_radius = 10.f;
  EXPECT_EQ(tiled_halo(p), uint32_t(40 + dof::kFillBlock - 1));
  p.max_radius = 511.f;
  EXPECT_EQ(tiled_halo(p), uint32_t(511 + dof::kHiddenGap));  // splats of points whose fragments read 6 px on
  p = dof_params("gather_shape", 10.f);
  p.highlights = true;
  EXPECT_EQ(tiled_halo(p), 20u);  // a sprite reaching the pixel, clipped to the image over its whole aperture
  EXPECT_NE(tiled_support(p), "");
  p.highlights = false;
  EXPECT_EQ(tiled_support(p), "");
}

TEST(Tiled, BoxFilterEqualsTheWholeImageAtAwkwardSizes) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Params p;
  p.filter = FilterKind::Box;
  // 1-pixel strips (tiles of one pixel too), prime sides, a tile +- 1, an image smaller than a tile.
  for (const auto& wh : std::vector<std::pair<int, int>>{{1, 1}, {1, 37}, {37, 1}, {61, 67}, {65, 63}})
    for (const int r : {0, 5}) {
      p.box_radius = r;
      const Scene s = make_scene(wh.first, wh.second, seed);
      std::vector<std::pair<uint32_t, uint32_t>> tiles = {{7, 5}, {16, 16}, {64, 64}};
      if (wh.first == 1 || wh.second == 1) tiles.push_back({1, 1});
      expect_tiles_equal_whole(s, p, false, tiles);
    }
}

// gather_box (plain and fractional), gather_shape and gather_linear with every aperture shape: halos of
// max_radius, so real tiles at small sizes.
TEST(Tiled, GatherModesEqualTheWholeImage) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::pair<uint32_t, uint32_t>> tiles = {{7, 5}, {16, 16}};
  for (const auto& wh : std::vector<std::pair<int, int>>{{1, 29}, {29, 1}, {43, 37}}) {
    const Scene s = make_scene(wh.first, wh.second, seed);
    for (const bool fractional : {false, true}) {
      Params p = dof_params("gather_box", 5.5f);
      p.fractional_radius = fractional;
      for (const bool d : {true, false}) expect_tiles_equal_whole(s, p, d, tiles);
    }
    for (const char* m : {"gather_shape", "gather_linear"})
      for (const ApertureShape a : {ApertureShape::Square, ApertureShape::Disc, ApertureShape::Polygon}) {
        Params p = dof_params(m, 4.5f);
        p.aperture_shape = a;
        SCOPED_TRACE(std::string(m) + " " + to_string(a));
        expect_tiles_equal_whole(s, p, true, tiles);
      }
    Params p = dof_params("gather_shape", 4.5f);
    expect_tiles_equal_whole(s, p, false, tiles);
  }
}

// The occlusion-aware modes read up to dof::fill_reach (their fills), so their tiles only cut images wider
// or taller than the halo twice: strips, cut across, and an image smaller than a tile.
TEST(Tiled, LayeredAndSpreadEqualTheWholeImageOnStrips) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Frames span a tile and two halos (111 and 113 pixels here): the strips are wider, so tiles are cut.
  for (const auto& wh : std::vector<std::pair<int, int>>{{1201, 2}, {2, 1201}, {40, 30}}) {
    const Scene s = make_scene(wh.first, wh.second, seed);
    const std::vector<std::pair<uint32_t, uint32_t>> tiles = {
        {wh.first > 2 ? 61u : 64u, wh.second > 2 ? 61u : 64u}};
    for (const int layers : {2, 8}) {
      Params p = dof_params("layered", 6.f);
      p.dof_layers = layers;
      p.aperture_shape = layers == 2 ? ApertureShape::Polygon : ApertureShape::Disc;
      SCOPED_TRACE("layered, " + std::to_string(layers) + " layers");
      expect_tiles_equal_whole(s, p, true, tiles);
    }
    Params p = dof_params("spread", 6.f);
    SCOPED_TRACE("spread");
    expect_tiles_equal_whole(s, p, true, tiles);
    p.dof_layers = 3;
    p.aperture_shape = ApertureShape::Square;
    expect_tiles_equal_whole(s, p, false, tiles);
  }
}

// Chromatic aberration's red and blue pass takes the whole image's histogram: tiles equal the whole image
// in spread and gather_shape; the layered mode, whose layer means would be the tile's, refuses it, and
// cat-eye, whose bins are the whole frame's, is refused in every mode.
TEST(Tiled, ChromaticAberrationEqualsTheWholeImageOrIsRefused) {
  const Scene s = make_scene(83, 47, test::fresh_seed());
  for (const char* mode : {"spread", "gather_shape"}) {
    Params p = dof_params(mode, 6.f);
    p.chromatic = 0.2f;
    SCOPED_TRACE(mode);
    expect_tiles_equal_whole(s, p, true, {{32u, 24u}});
  }
  // Refused with one line naming the flag.
  const auto refused = [&](const Params& p, const std::string& flag) {
    try {
      tiled(s.image, &s.depth, p, 32, 24, tiled_halo(p));
      ADD_FAILURE() << flag << " taken in tiles";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  };
  Params p = dof_params("layered", 6.f);
  p.chromatic = 0.2f;
  refused(p, "--chromatic");
  Params q = dof_params("spread", 6.f);
  q.cat_eye = 0.5f;
  refused(q, "--cat-eye");
}

TEST(Tiled, HighlightsEqualTheWholeImageWhileUnderTheCap) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Scene s = make_scene(53, 47, seed);
  for (const char* m : {"gather_box", "gather_shape", "spread"}) {
    Params p = dof_params(m, 4.f);
    p.highlights = true;
    auto pipe = make_cpu_pipeline(2);
    pipe->set_image(s.image);
    pipe->set_depth(s.depth);
    pipe->set_params(p);
    pipe->run();
    const HighlightStats hs = pipe->highlight_stats();
    ASSERT_GT(hs.found, 4u) << "the scene has highlights";
    const Tiled t = tiled(s.image, &s.depth, p, 16, 13, tiled_halo(p));
    EXPECT_EQ(t.report.highlights_found, hs.found) << m;
    EXPECT_TRUE(t.report.exact) << m;
    EXPECT_TRUE(same_pixels(t.out, pipe->result())) << m;
    // Over the cap the whole image keeps its first sprites in raster order, the tiles their own: the report
    // says the result may differ.
    p.highlight_cap = int(hs.found / 2);
    const Tiled c = tiled(s.image, &s.depth, p, 16, 13, tiled_halo(p));
    EXPECT_EQ(c.report.highlights_found, hs.found) << m;
    EXPECT_FALSE(c.report.exact) << m;
  }
}

// The statistics passes reproduce the whole image's normalisation bit for bit: NaN skipped, infinities
// kept, constant and all-NaN depth normalised to 0; the histogram is depth_histogram's of it.
TEST(Tiled, DepthStatisticsReproduceTheWholeImagesNormalisation) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const Scene s = make_scene(37, 29, seed);
  std::vector<std::pair<std::string, ImageF>> depths;
  depths.push_back({"planes", s.depth});
  ImageF d = s.depth;
  for (size_t i = 0; i < d.data.size(); i += 5) d.data[i] = nan;
  depths.push_back({"NaN holes", d});
  d.data[7] = inf;
  depths.push_back({"NaN and +inf", d});
  d = s.depth;
  d.data[3] = -inf;
  depths.push_back({"-inf", d});
  for (auto& v : d.data) v = 2.5f;
  depths.push_back({"constant", d});
  for (auto& v : d.data) v = nan;
  depths.push_back({"all NaN", d});
  d = s.depth;
  for (size_t i = 0; i < d.data.size(); ++i) d.data[i] = i % 2 ? 0.f : -0.f;
  d.data[11] = 1.f;
  depths.push_back({"signed zeros", d});
  // A 16-bit depth file's values (k / 65535) and an 8-bit one's (k / 255): read once, their counts per grid
  // step taken with the range; one value off the grid and the histogram takes its own pass again.
  std::mt19937 rng(seed);
  d = s.depth;
  for (auto& v : d.data) v = float(rng() % 65536) / 65535.f;
  depths.push_back({"16-bit grid", d});
  for (auto& v : d.data) v = float(rng() % 256) / 255.f;
  depths.push_back({"8-bit grid", d});
  for (auto& v : d.data) v = float(rng() % 3 + 40000) / 65535.f;  // three steps: a narrow range
  depths.push_back({"16-bit grid, narrow", d});
  d.data[d.data.size() / 2] = 0.5f + 1e-7f;
  depths.push_back({"16-bit grid and one value off it", d});
  for (const auto& [name, depth] : depths) {
    SCOPED_TRACE(name);
    const uint32_t w = uint32_t(depth.width), h = uint32_t(depth.height);
    for (const uint32_t rows : {1u, 7u, 1024u}) {
      uint32_t rows_read = 0;
      const FrameStats st = depth_frame_stats(
          DepthRowSource{w, h,
                      [&](uint32_t y0, uint32_t y1, float* out, size_t stride) {
                        rows_read += y1 - y0;
                        for (uint32_t y = y0; y < y1; ++y)
                          std::memcpy(out + (y - y0) * stride, depth.data.data() + size_t(y) * w, w * 4);
                      },
                      {}},
          rows);
      const bool grid = (name.find("grid") != std::string::npos && name.find("off it") == std::string::npos) ||
                        name == "signed zeros";  // 0, -0 and 1 lie on the grid too
      EXPECT_EQ(rows_read, (grid ? 1u : 2u) * h) << "passes over the depth";
      const MinMax mm = minmax_reduce(depth.data.data(), depth.data.size(), 3);
      ImageF want, got;
      normalise_depth(depth, want, 3);
      normalise_depth(depth, MinMax{st.depth_min, st.depth_max}, got);
      for (size_t i = 0; i < want.data.size(); ++i)
        ASSERT_TRUE(std::memcmp(&want.data[i], &got.data[i], 4) == 0 ||
                    (want.data[i] == 0.f && got.data[i] == 0.f))  // the sign of a zero min may differ
            << "pixel " << i << ": " << want.data[i] << " vs " << got.data[i];
      EXPECT_TRUE(st.depth_min == mm.min || (std::isnan(st.depth_min) && std::isnan(mm.min)));
      EXPECT_TRUE(st.depth_max == mm.max || (std::isnan(st.depth_max) && std::isnan(mm.max)));
      DepthHistogram hist;
      depth_histogram(want, hist);
      EXPECT_EQ(st.histogram.count, hist.count);
    }
    for (const char* m : {"gather_box", "layered"}) {
      if (std::string(m) == "layered" && name != "NaN and +inf" && name != "all NaN") continue;
      const Params p = dof_params(m, 3.f);
      EXPECT_TRUE(same_pixels(tiled(s.image, &depth, p, 9, 11, tiled_halo(p)).out, whole(s.image, &depth, p)))
          << m;
    }
  }
}

// The layered mode's layer means are the whole image's: given to each tile from a third pass over the depth.
TEST(Tiled, LayeredTilesTakeTheWholeImagesLayerMeans) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Scene s = make_scene(1201, 2, seed);  // wider than a frame (1088)
  Params p = dof_params("layered", 8.f);
  p.dof_layers = 8;
  const Tiled t = tiled(s.image, &s.depth, p, 64, 2, tiled_halo(p));
  EXPECT_EQ(t.depth_passes, 4);  // range, histogram, layer sums, bands
  EXPECT_TRUE(same_pixels(t.out, whole(s.image, &s.depth, p)));
  p.dof_mode = "spread";  // reads no layer means: no third pass
  EXPECT_EQ(tiled(s.image, &s.depth, p, 64, 2, tiled_halo(p)).depth_passes, 3);
}

// The pipeline given its own frame's statistics gives the same result, and says in its timings that it only
// normalised.
TEST(Tiled, AFramesOwnStatisticsChangeNothing) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Scene s = make_scene(45, 38, seed);
  for (const char* m : {"gather_linear", "layered", "spread"}) {
    Params p = dof_params(m, 5.f);
    auto pipe = make_cpu_pipeline(2);
    pipe->set_image(s.image);
    pipe->set_depth(s.depth);
    pipe->set_params(p);
    pipe->run();
    const ImageRGBA8 own = pipe->result();
    const uint32_t w = uint32_t(s.depth.width), h = uint32_t(s.depth.height);
    pipe->set_frame_stats(depth_frame_stats(
        DepthRowSource{w, h,
                    [&](uint32_t y0, uint32_t y1, float* out, size_t stride) {
                      for (uint32_t y = y0; y < y1; ++y)
                        std::memcpy(out + (y - y0) * stride, s.depth.data.data() + size_t(y) * w, w * 4);
                    },
                    {}},
        16, &p));
    pipe->run();
    EXPECT_TRUE(same_pixels(pipe->result(), own)) << m;
    std::vector<std::string> names;
    for (const StageTiming& t : pipe->timings()) names.push_back(t.name);
    EXPECT_EQ(std::count(names.begin(), names.end(), "normalise"), 1) << m;
    EXPECT_EQ(std::count(names.begin(), names.end(), "reduce"), 0) << m;
    pipe->set_frame_stats(FrameStats{});
    pipe->run();
    EXPECT_EQ(pipe->timings().front().name, "reduce") << m;
  }
}

TEST(Tiled, SeveralWorkersGiveTheSameResult) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Scene s = make_scene(71, 33, seed);
  const Params p = dof_params("gather_linear", 3.f);
  const ImageRGBA8 want = whole(s.image, &s.depth, p);
  for (const int workers : {2, 3, 16})
    EXPECT_TRUE(same_pixels(tiled(s.image, &s.depth, p, 8, 9, 3, workers).out, want));
}

// A CPU pipeline whose frames take a few milliseconds longer: the reader then runs as far ahead of the
// filtering as the rings allow, and the writer waits on it.
class SlowPipeline final : public Pipeline {
 public:
  std::string backend_name() const override { return "slow " + p_->backend_name(); }
  void set_image(const ImageRGBA8& i) override { p_->set_image(i); }
  void set_depth(const ImageF& d) override { p_->set_depth(d); }
  void set_params(const Params& p) override { p_->set_params(p); }
  void set_frame_stats(const FrameStats& s) override { p_->set_frame_stats(s); }
  void run() override {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    p_->run();
  }
  const ImageRGBA8& result() override { return p_->result(); }
  const ImageF& depth_normalised() override { return p_->depth_normalised(); }
  const ImageF& coc() override { return p_->coc(); }
  const std::vector<StageTiming>& timings() const override { return p_->timings(); }
  std::vector<std::string> sat_builders() const override { return p_->sat_builders(); }
  std::vector<std::string> reductions() const override { return p_->reductions(); }
  Algorithms algorithms() const override { return p_->algorithms(); }
  void set_algorithms(const Algorithms& a) override { p_->set_algorithms(a); }

 private:
  std::unique_ptr<Pipeline> p_ = make_cpu_pipeline(1);
};

// Reading runs a band ahead of the filtering, into rings that hold a band's frame and the next band's
// rows: with the filtering slowed down, the reader waits for it rather than overwriting rows a band still
// reads (bands of 1 to 8 rows, halos of up to 3 bands).
TEST(Tiled, TheReaderNeverOverwritesRowsABandStillReads) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Scene s = make_scene(37, 61, seed);
  for (const char* mode : {"gather_linear", "spread"}) {
    const Params p = dof_params(mode, 3.f);
    const ImageRGBA8 want = whole(s.image, &s.depth, p);
    for (const uint32_t th : {1u, 5u, 8u})
      for (const uint32_t halo : {tiled_halo(p), tiled_halo(p) + 2 * th})
        EXPECT_TRUE(same_pixels(
            tiled(s.image, &s.depth, p, 16, th, halo, 2, [] { return std::make_unique<SlowPipeline>(); }).out,
            want))
            << mode << ", bands of " << th << " rows, halo " << halo;
  }
}

// A source or sink that fails mid-image: its error reaches the caller, and the other stages stop.
TEST(Tiled, ASourcesOrSinksErrorReachesTheCaller) {
  const Scene s = make_scene(24, 40, 9);
  Params p;
  p.filter = FilterKind::Box;
  p.box_radius = 1;
  for (const bool source_fails : {true, false}) {
    uint32_t written = 0;
    RowSource src{24, 40, [&](uint32_t y0, uint32_t y1, uint8_t* d, size_t stride) {
                    if (source_fails && y1 > 20) throw Error("source: truncated at row 20");
                    for (uint32_t y = y0; y < y1; ++y)
                      std::memcpy(d + (y - y0) * stride, s.image.px(0, int(y)), 96);
                  }};
    RowSink sink{[&](uint32_t n, const uint8_t*, size_t) {
      if (!source_fails && written >= 16) throw Error("sink: disk full");
      written += n;
    }};
    try {
      run_tiled(src, nullptr, p, plan_of(8, 8, 1), [] { return make_cpu_pipeline(1); }, sink, 2);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), source_fails ? "source: truncated at row 20" : "sink: disk full");
    }
    EXPECT_LE(written, 16u) << "rows past the failure were written";
  }
}

// The executor's own checks: a halo too small, sizes that disagree, a failing pipeline, a cancel.
TEST(Tiled, RefusesWhatItCannotDoExactly) {
  const Scene s = make_scene(20, 10, 7);
  const Params p = dof_params("gather_shape", 4.f);
  try {
    tiled(s.image, &s.depth, p, 8, 8, 3);
    ADD_FAILURE() << "a halo of 3 was taken for a filter of support 4";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("halo of 3"), std::string::npos) << e.what();
  }
  DepthRowSource small{19, 10, [](uint32_t, uint32_t, float*, size_t) {}, {}};
  RowSource src{20, 10, [](uint32_t, uint32_t, uint8_t*, size_t) {}};
  RowSink sink{[](uint32_t, const uint8_t*, size_t) {}};
  EXPECT_THROW(run_tiled(
                   src, &small, p, plan_of(8, 8, 4), [] { return make_cpu_pipeline(1); }, sink),
               Error);
}

TEST(Tiled, CancelStopsAfterAWholeBand) {
  const Scene s = make_scene(30, 40, 3);
  Params p;
  p.filter = FilterKind::Box;
  p.box_radius = 2;
  uint32_t written = 0;
  int calls = 0;
  RowSource src{30, 40, [&](uint32_t y0, uint32_t y1, uint8_t* d, size_t stride) {
                  for (uint32_t y = y0; y < y1; ++y)
                    std::memcpy(d + (y - y0) * stride, s.image.px(0, int(y)), 120);
                }};
  RowSink sink{[&](uint32_t n, const uint8_t*, size_t) { written += n; }};
  try {
    run_tiled(
        src, nullptr, p, plan_of(16, 10, 2), [] { return make_cpu_pipeline(1); }, sink, 1,
        [&](const TiledProgress& pr) {
          EXPECT_EQ(pr.rows_total, 40u);
          EXPECT_EQ(pr.rows_done, 10u * uint32_t(calls + 1));  // the rows filtered: one band more each call
          return ++calls < 2;
        });
    ADD_FAILURE() << "not cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cancelled");
  }
  // The writer runs a band behind the filtering: it had the bands filtered before the cancel, or fewer,
  // and only whole ones (the sink is called on the writer's thread, joined before run_tiled returns).
  EXPECT_EQ(calls, 2);
  EXPECT_LE(written, 20u);
  EXPECT_EQ(written % 10, 0u);
}

// A pipeline that fails on its second tile: the error reaches the caller, whichever worker met it.
TEST(Tiled, APipelinesErrorReachesTheCaller) {
  const Scene s = make_scene(40, 8, 5);
  Params p;
  p.filter = FilterKind::Box;
  p.box_radius = 1;
  int made = 0;
  RowSource src{40, 8, [&](uint32_t y0, uint32_t y1, uint8_t* d, size_t stride) {
                  for (uint32_t y = y0; y < y1; ++y)
                    std::memcpy(d + (y - y0) * stride, s.image.px(0, int(y)), 160);
                }};
  RowSink sink{[](uint32_t, const uint8_t*, size_t) {}};
  const auto make = [&]() -> std::unique_ptr<Pipeline> {
    if (++made > 1) throw Error("no second pipeline");
    return make_cpu_pipeline(1);
  };
  EXPECT_THROW(run_tiled(src, nullptr, p, plan_of(8, 8, 1), make, sink, 2), Error);
}

// On the GPU the executor's row buffers (rings and result rows, width x band height) stay within 640 MiB
// where a plan allows, so host memory does not grow with the width from 16384^2 to 65536^2: the bands get
// shorter as the image gets wider. The CPU's plans are not held to it.
TEST(Tiled, GpuPlansKeepTheRowBuffersFlatInTheWidth) {
  Params box;
  box.filter = FilterKind::Box;
  box.box_radius = 10;
  for (const Params& p : {box, dof_params("spread", 10.f), dof_params("layered", 10.f)}) {
    uint32_t last_th = UINT32_MAX;
    for (const uint32_t w : {16384u, 32768u, 65536u}) {
      const TilePlan t = plan_tiles(w, w, p, size_t(3) << 30, true, 0, 2);
      const tiling::Axis ay(w, t.tile_height, t.halo);
      const double rows = (p.filter == FilterKind::Dof ? 8.0 : 4.0) * tiling::ring_rows(ay) * w +
                          2 * 4.0 * t.tile_height * w;
      EXPECT_LE(rows, double(640 << 20)) << w << " wide, " << t.tile_width << "x" << t.tile_height;
      EXPECT_LE(t.tile_height, last_th) << "a wider image took taller bands";
      last_th = t.tile_height;
      std::printf("  %s %u^2: %ux%u tiles, halo %u, row buffers %.0f MiB\n",
                  p.filter == FilterKind::Dof ? p.dof_mode.c_str() : "box", w, t.tile_width, t.tile_height,
                  t.halo, rows / double(1 << 20));
    }
  }
  // Where no plan keeps them within it (an image too wide for even the shortest band), the plan is the
  // budget's as before, not a refusal.
  const TilePlan wide = plan_tiles(1u << 22, 256, box, size_t(8) << 30, true, 0, 2);
  EXPECT_GT(wide.tile_width, 0u);
}

TEST(Tiled, ThePlanFitsTheBudgetOrRefusesInOneLine) {
  const Params p = dof_params("spread", 24.f);
  for (const bool gpu : {false, true}) {
    uint64_t last_work = UINT64_MAX;
    for (const size_t budget : {size_t(1) << 30, size_t(2) << 30, size_t(8) << 30}) {
      const TilePlan t = plan_tiles(65536, 65536, p, budget, gpu, 0, 2);
      EXPECT_LE(t.host_bytes, budget);
      EXPECT_LE(t.device_bytes, budget);
      EXPECT_EQ(t.halo, tiled_halo(p));
      EXPECT_GE(t.frame_pixels, uint64_t(65536) * 65536);
      EXPECT_LE(t.frame_pixels, last_work) << "a larger budget took more work";
      EXPECT_GE((65536 + t.tile_width - 1) / t.tile_width, 2u) << "a band of one tile for two workers";
      last_work = t.frame_pixels;
      EXPECT_EQ(gpu, t.device_bytes > 0);
    }
  }
  // A small image is one tile of its own size, with no halo to process.
  const TilePlan one = plan_tiles(300, 200, p, size_t(1) << 30, false);
  EXPECT_EQ(one.tile_width, 300u);
  EXPECT_EQ(one.tile_height, 200u);
  EXPECT_EQ(one.frame_pixels, 300u * 200u);
  EXPECT_EQ(plan_tiles(300, 200, p, size_t(1) << 30, false, 128).tile_width, 128u);  // capped
  // On the GPU, where the rows fit, a band spans the image's width: no halo across.
  const Params gb = dof_params("gather_box", 8.f);
  const TilePlan wide = plan_tiles(3000, 100000, gb, size_t(256) << 20, true);
  EXPECT_EQ(wide.tile_width, 3000u);
  // On the CPU, frames of at most 2^20 pixels (so narrower tiles here), whose halos (8 px) cost little.
  const TilePlan cpu = plan_tiles(3000, 100000, gb, size_t(256) << 20, false);
  const tiling::Axis cx(3000, cpu.tile_width, cpu.halo), cy(100000, cpu.tile_height, cpu.halo);
  EXPECT_LE(uint64_t(cx.extent) * cy.extent, uint64_t(1) << 20);
  EXPECT_LT(cpu.tile_width, 3000u);
  EXPECT_LE(double(cpu.frame_pixels), 1.2 * 3000.0 * 100000);
  try {
    plan_tiles(1u << 20, 1000, p, size_t(8) << 20, false);
    ADD_FAILURE() << "8 MB took a band of a 2^20-wide image";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("memory budget of 8 MB is too small for one 64x64 tile with its halo of " +
                       std::to_string(tiled_halo(p)) + ": it needs "),
              std::string::npos)
        << msg;
    // What takes it: the band of full-width rows, not the tile.
    EXPECT_NE(msg.find("the band of 1048576-pixel rows"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

// What the halos guard: a tile cut with less than a mode's support differs from the whole image where the
// support is used. The occlusion-aware modes fill what the front layer leaves uncovered from the layers
// behind it, searched in growing boxes up to dof::fill_reach (96 px here). Here a middle layer (CoC -10) with posts in
// focus, 12 of every 32 columns (too sharp to cover anything but themselves, and too wide to hide a
// background of their own, so the middle layer covers its apertures in part), lies in front of a far layer
// (CoC -24, a colour per column) found at the left end and in single columns 97 apart: the fills reach
// across the strip for it. The spread's fill also sums blocks of kFillBlock columns from the frame's
// origin: a tile whose origin is not on that grid differs even with the whole halo.
TEST(Tiled, TheFillReachesAsFarAsItsHaloFromAnAlignedOrigin) {
  const int w = 1300, h = 2, tile = 64;  // frames of 258 and 260 columns (tile, halos, alignment): cut
  Params p = dof_params("layered", 24.f);
  p.dof_layers = 3;
  p.focus = 0.f, p.aperture = 30.f;  // d = 1: CoC -27, clamped to -24
  float mid = 0.f;
  for (float d = 0.f; d < 1.f; d += 1.f / 4096.f)
    if (coc_from_depth(d, p) > -10.f) mid = d;
  ImageRGBA8 img(w, h);
  ImageF depth(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int kind = x < 8 || x % 97 == 20 ? 0 : x % 32 < 12 ? 2 : 1;  // far, posts, the middle layer
      depth.at(x, y) = kind == 0 ? 1.f : kind == 2 ? 0.f : mid;
      uint8_t* px = img.px(x, y);
      px[0] = uint8_t(kind == 0 ? 40 + x * 37 % 211 : 20), px[1] = kind == 2 ? 200 : 40, px[2] = 90,
      px[3] = 255;
    }
  const auto read = [&](uint32_t y0, uint32_t y1, float* out, size_t stride) {
    for (uint32_t y = y0; y < y1; ++y)
      std::memcpy(out + (y - y0) * stride, depth.data.data() + size_t(y) * w, w * 4);
  };
  for (const char* m : {"layered", "spread"}) {
    SCOPED_TRACE(m);
    p.dof_mode = m;
    const ImageRGBA8 want = whole(img, &depth, p);
    for (const uint32_t halo : {tiled_halo(p), tiled_halo(p) + 1})  // run_tiled aligns the origins
      EXPECT_TRUE(same_pixels(tiled(img, &depth, p, tile, 2, halo).out, want)) << "halo " << halo;
    // The pixels that differ from the whole image's when each tile is run as run_tiled runs it, with a halo
    // of `halo` and its origin on the column `halo` columns before its interior (clamped at 0).
    const FrameStats stats = depth_frame_stats(DepthRowSource{uint32_t(w), uint32_t(h), read, {}}, 64, &p);
    const auto differ = [&](int halo) {
      size_t n = 0;
      for (int x0 = 0; x0 < w; x0 += tile) {
        const int fx0 = std::max(x0 - halo, 0), fx1 = std::min(x0 + tile + halo, w);
        ImageRGBA8 ti(fx1 - fx0, h);
        ImageF td(fx1 - fx0, h, 1);
        for (int y = 0; y < h; ++y)
          for (int x = fx0; x < fx1; ++x) {
            std::memcpy(ti.px(x - fx0, y), img.px(x, y), 4);
            td.at(x - fx0, y) = depth.at(x, y);
          }
        auto pipe = make_cpu_pipeline(1);
        pipe->set_image(ti);
        pipe->set_depth(td);
        pipe->set_params(p);
        pipe->set_frame_stats(stats);
        pipe->run();
        for (int y = 0; y < h; ++y)
          for (int x = x0; x < std::min(x0 + tile, w); ++x)
            n += std::memcmp(pipe->result().px(x - fx0, y), want.px(x, y), 4) != 0;
      }
      return n;
    };
    // The gather's halo alone (max_radius, and the spread's fragments' kHiddenGap).
    const int gather = shaped_max_radius(p) + (dof_mode_of(p).spread ? dof::kHiddenGap : 0);
    const size_t short_halo = differ(gather), odd = differ(int(tiled_halo(p)) | 1);
    EXPECT_GT(short_halo, 0u) << "no pixel of this scene needs the fill's reach: the test shows nothing";
    std::printf("  %s: %zu of %d pixels differ with a halo of %d, %zu from odd origins\n", m, short_halo,
                w * h, gather, odd);
    if (dof_mode_of(p).spread)
      EXPECT_GT(odd, 0u) << "no pixel of this scene depends on the fill blocks' grid: the test shows nothing";
    else
      EXPECT_EQ(odd, 0u) << "the layered mode has no blocks: any origin is exact";
  }
}

}  // namespace
