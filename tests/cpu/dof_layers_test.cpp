// The occlusion-aware modes' layer edges from the depth histogram (core/dof.hpp: depth_histogram,
// frame_layers): the histogram's counts, the edges' invariants, and the occlusion they buy over fixed edges.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "core/dof.hpp"
#include "core/dof_spread.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

// Two depths behind the focus plane whose CoCs (about -1.9 and -3.6 px at max_radius 4) share make_layers'
// farthest layer of 6: an object and the wall behind it, as on the ground truth's default scene.
struct BehindFocus {
  Params p;
  float d_object = 0.f, d_wall = 1.f;
  BehindFocus() {
    p.dof_mode = "spread";
    p.max_radius = 4.f;
    p.focus = 0.f;
    p.aperture = 1.f;
    p.aperture = -3.6f / coc_from_depth(d_wall, p);  // the wall at -3.6 px
    for (float d = 0.f; d < 1.f; d += 1.f / 4096.f)
      if (coc_from_depth(d, p) > -1.9f) d_object = d;  // the farthest depth still nearer than -1.9 px
  }
};

TEST(DofLayers, DepthHistogramCountsEveryPixelOnce) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (const int n : {1, 61, 4097, 200003}) {
    ImageF d(n, 1, 1);
    for (auto& v : d.data) v = rng() % 9 == 0 ? std::nanf("") : u(rng);
    d.data[0] = n > 2 ? 1.f : d.data[0];  // the top of the range lands in the last bin
    DepthHistogram h;
    depth_histogram(d, h, 2);
    ASSERT_EQ(h.count.size(), size_t(kDepthBins + 1));
    std::vector<uint32_t> want(kDepthBins + 1, 0u);
    for (float v : d.data) {
      const int b = v == v ? std::min(int(std::floor(double(v) * kDepthBins)), kDepthBins - 1) : kDepthBins;
      ++want[size_t(b)];
    }
    EXPECT_EQ(h.count, want) << n;
  }
  EXPECT_EQ(depth_bin(0.f), 0);
  EXPECT_EQ(depth_bin(0.5f), kDepthBins / 2);
  EXPECT_EQ(depth_bin(1.f), kDepthBins - 1);
  EXPECT_EQ(depth_bin(std::nanf("")), kDepthBins);
}

TEST(DofLayers, WithoutAHistogramTheEdgesAreFixed) {
  Params p;
  p.max_radius = 13.f;
  for (int count = 1; count <= dof::kMaxLayers; ++count) {
    const dof::Layers a = make_layers(p, count), b = frame_layers(p, count, nullptr);
    DepthHistogram empty;
    const dof::Layers c = frame_layers(p, count, &empty);
    for (int i = 0; i <= count; ++i) {
      EXPECT_EQ(a.edge[i], b.edge[i]);
      EXPECT_EQ(a.edge[i], c.edge[i]);
    }
  }
}

// Whatever the counts (sparse, one bin, NaN only, random), the edges increase strictly from -M to M.
TEST(DofLayers, EdgesIncreaseFromMinusToPlusTheMaxRadius) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Params p;
  p.max_radius = 9.f, p.aperture = 40.f, p.focus = 0.3f;
  for (int trial = 0; trial < 40; ++trial) {
    DepthHistogram h;
    h.count.assign(kDepthBins + 1, 0u);
    const int kind = trial % 4;
    if (kind == 0) h.count[size_t(rng() % (kDepthBins + 1))] = 1000;
    if (kind == 1) h.count[kDepthBins] = 7;
    if (kind == 2)
      for (int i = 0; i < 5; ++i) h.count[size_t(rng() % kDepthBins)] += rng() % 100000;
    if (kind == 3)
      for (auto& c : h.count) c = rng() % 50;
    for (int count = 2; count <= dof::kMaxLayers; ++count) {
      const dof::Layers l = frame_layers(p, count, &h);
      EXPECT_EQ(l.edge[0], -p.max_radius);
      EXPECT_EQ(l.edge[count], p.max_radius);
      for (int i = 0; i < count; ++i) {
        EXPECT_LT(l.edge[i], l.edge[i + 1]) << "trial " << trial << " count " << count << " edge " << i;
        EXPECT_EQ(l.mean_coc[i], 0.5f * (l.edge[i] + l.edge[i + 1]));
      }
    }
  }
}

TEST(DofLayers, TwoSurfacesGetLayersOfTheirOwn) {
  const BehindFocus s;
  const float c_obj = coc_from_depth(s.d_object, s.p), c_wall = coc_from_depth(s.d_wall, s.p);
  ASSERT_LT(c_obj, -1.8f);
  ASSERT_GT(c_obj, -1.95f);
  const dof::Layers fixed = make_layers(s.p, 6);
  ASSERT_EQ(dof::layer_of(c_obj, fixed), dof::layer_of(c_wall, fixed));  // what the fixed edges do
  DepthHistogram h;
  h.count.assign(kDepthBins + 1, 0u);
  h.count[size_t(depth_bin(s.d_object))] = 300;
  h.count[size_t(depth_bin(s.d_wall))] = 5000;
  h.count[size_t(depth_bin(0.f))] = 800;  // something in focus
  const dof::Layers l = frame_layers(s.p, 6, &h);
  EXPECT_NE(dof::layer_of(c_obj, l), dof::layer_of(c_wall, l));
  EXPECT_NE(dof::layer_of(c_obj, l), dof::layer_of(0.f, l));
}

// Four surfaces (a lens like the ground truth's default_middle_large): the plain k-means edges give each its
// own layer but cost the spread more window work than the fixed edges; the search finds edges that still
// separate all four within the fixed edges' work.
TEST(DofLayers, WhereThePlainEdgesCostMoreWorkTheEdgesStayWithinTheFixedEdgesWork) {
  Params p;
  p.max_radius = 13.f, p.aperture = 37.4f, p.focus = 0.18f;
  DepthHistogram h;
  h.count.assign(kDepthBins + 1, 0u);
  const int bins[4] = {155, 166, 313, 381};
  const uint32_t counts[4] = {69452, 77403, 81453, 86687};
  for (int i = 0; i < 4; ++i) h.count[size_t(bins[i])] = counts[i];
  LayerSearch s;
  const dof::Layers l = histogram_layers(p, 6, h, &s);
  EXPECT_EQ(s.kind, LayerSearch::Constrained);
  EXPECT_GT(s.work_plain, s.work_fixed);
  EXPECT_LE(s.work, s.work_fixed);
  EXPECT_GT(s.cost_fixed, 0.0);  // the fixed edges put two of them in one layer
  EXPECT_LE(s.cost, 1e-9 * s.cost_fixed);
  std::vector<int> layer;
  for (const int b : bins) layer.push_back(dof::layer_of(coc_from_depth((b + 0.5f) / kDepthBins, p), l));
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) EXPECT_NE(layer[size_t(i)], layer[size_t(j)]) << bins[i] << " " << bins[j];
  const dof::Layers f = frame_layers(p, 6, &h);  // frame_layers takes the same edges
  for (int i = 0; i <= 6; ++i) EXPECT_EQ(f.edge[i], l.edge[i]);
}

// On random histograms: the chosen edges never cost more work than the fixed ones, nor more variance; the
// plain k-means edges are kept exactly where they fit; constrained edges lie between the two. (These
// follow from the selection; that the search finds good constrained edges is what the test above and the
// quality scores show, docs/quality.md.)
TEST(DofLayers, TheEdgesNeverCostMoreWorkOrVarianceThanTheFixedOnes) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  int kinds[3] = {};
  for (int trial = 0; trial < 300; ++trial) {
    Params p;
    p.max_radius = 4.f + float(rng() % 20), p.aperture = 10.f + float(rng() % 40);
    p.focus = float(rng() % 1000) / 1000.f;
    DepthHistogram h;
    h.count.assign(kDepthBins + 1, 0u);
    const int spikes = 1 + int(rng() % 7);
    for (int i = 0; i < spikes; ++i) h.count[size_t(rng() % kDepthBins)] += 1000u + rng() % 100000u;
    if (trial % 3 == 0)
      for (auto& c : h.count) c += rng() % 40;
    const int count = 2 + int(rng() % (dof::kMaxLayers - 1));
    LayerSearch s;
    histogram_layers(p, count, h, &s);
    ++kinds[s.kind];
    // The search's pull toward the fixed edges (1e-7 pixels per unit of squared distance in u, at most 2,
    // per edge) may trade that much variance for position: the plain edges' variance is least only to
    // within it.
    double pixels = 0.0;
    for (const uint32_t c : h.count) pixels += double(c);
    const double tol = 4e-7 * count * pixels + 1e-9 * s.cost_fixed;
    EXPECT_LE(s.work, s.work_fixed) << trial;
    EXPECT_LE(s.cost, s.cost_fixed + tol) << trial;
    EXPECT_GE(s.cost, s.cost_plain - tol) << trial;
    if (s.kind == LayerSearch::Plain) {
      EXPECT_LE(s.work_plain, s.work_fixed) << trial;
    } else {
      EXPECT_GT(s.work_plain, s.work_fixed) << trial;
    }
    if (s.kind == LayerSearch::Constrained) {
      EXPECT_LT(s.cost, s.cost_fixed) << trial;
    }
  }
  EXPECT_GT(kinds[LayerSearch::Plain], 0);
  EXPECT_GT(kinds[LayerSearch::Constrained], 0);
}

// The last call's result is reused only for the same counts, lens and layer count.
TEST(DofLayers, ARepeatedCallGivesTheSameEdgesAndAChangedOneNewEdges) {
  const BehindFocus s;
  DepthHistogram a, b;
  a.count.assign(kDepthBins + 1, 0u);
  a.count[size_t(depth_bin(s.d_object))] = 300, a.count[size_t(depth_bin(s.d_wall))] = 5000;
  a.count[size_t(depth_bin(0.f))] = 800;
  b = a;
  b.count[size_t(depth_bin(s.d_object))] = 0, b.count[size_t(depth_bin(0.6f))] = 300;
  const auto edges = [](const dof::Layers& l) { return std::vector<float>(l.edge, l.edge + l.count + 1); };
  const std::vector<float> ea = edges(frame_layers(s.p, 6, &a)), eb = edges(frame_layers(s.p, 6, &b));
  EXPECT_NE(ea, eb);
  EXPECT_EQ(edges(frame_layers(s.p, 6, &a)), ea);
  EXPECT_EQ(edges(frame_layers(s.p, 6, &b)), eb);
  EXPECT_EQ(frame_layers(s.p, 5, &b).count, 5);
  Params q = s.p;
  q.focus = 0.3f;
  EXPECT_NE(edges(frame_layers(q, 6, &b)), eb);
}

// Through the CPU pipeline (its depth histogram): an object behind the focus plane in front of a farther
// wall keeps the wall's wider blur out of its inside, 2 px in from its silhouette (beyond its own CoC of
// 1.9 px, within the wall's 3.6). With the fixed edges the two share a layer and the wall shows through.
TEST(DofLayers, TheWallBehindAnObjectStaysBehindIt) {
  const BehindFocus s;
  const test::TwoPlanes planes(0.f, 0.f);
  ImageF depth(planes.img.width, planes.img.height, 1);
  for (int y = 0; y < depth.height; ++y)
    for (int x = 0; x < depth.width; ++x) depth.at(x, y) = planes.img.px(x, y)[0] == 230 ? s.d_object : s.d_wall;
  depth.at(0, 0) = 0.f;  // the normalisation's minimum: the focus depth
  auto pipe = make_cpu_pipeline(2);
  pipe->set_image(planes.img);
  pipe->set_params(s.p);
  pipe->set_depth(depth);
  pipe->run();
  const ImageRGBA8 out = pipe->result();
  for (const int x : {42, 67}) {
    EXPECT_GE(out.px(x, 32)[0], 225) << x;  // the object's red, unmixed
    EXPECT_LE(out.px(x, 32)[1], 5) << x;
  }
  ImageRGBA8 fixed;
  dof_spread_blur(planes.img, pipe->coc(), s.p, fixed, 1, nullptr);
  EXPECT_GT(fixed.px(42, 32)[1], 10);  // the wall's green over the object
}

}  // namespace
