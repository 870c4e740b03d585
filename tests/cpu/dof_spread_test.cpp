// The spread DoF mode's CPU reference (core/dof_spread.cpp): the corner deltas integrate to exactly the
// splats' rectangles, energy is kept, invariants (flat stays flat, zero and NaN CoC are the identity), what
// layered spreading does at the two occlusion artifacts, and the pipeline's degenerate depth maps.
#include "core/dof_spread.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/dof_modes.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

ImageF random_coc(int w, int h, float m, uint32_t seed, bool nans = false) {
  ImageF c(w, h, 1);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-m, m);
  for (auto& v : c.data) v = nans && rng() % 7 == 0 ? std::nanf("") : u(rng);
  return c;
}

Params spread_params(float max_radius, ApertureShape shape = ApertureShape::Disc) {
  Params p;
  p.dof_mode = "spread";
  p.max_radius = max_radius;
  p.aperture_shape = shape;
  return p;
}

}  // namespace

TEST(SpreadMode, ListedAsASpreadingOcclusionAwareMode) {
  const DofMode* m = find_dof_mode("spread");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->spread && m->shaped && m->linear_light && m->occlusion);
  for (const DofMode& other : dof_modes()) {
    EXPECT_EQ(other.spread, std::string(other.name) == "spread") << other.name;
  }
}

// The SAT of each layer's deltas is, at every pixel, exactly the sum of the values of the splats whose
// rectangles (clipped to the image) hold it: brute force over every splat and rectangle.
TEST(SpreadMode, DeltasIntegrateToExactlyTheSplatsRectangles) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon, ApertureShape::Square}) {
    const int w = 23, h = 17;
    const Params p = spread_params(6.5f, shape);
    const ImageRGBA8 img = test::random_image(w, h, seed);
    const ImageF coc = random_coc(w, h, 6.5f, seed + 1, true);
    const dof::Layers layers = make_layers(p, 3);
    const ApertureTable ap = aperture_table(p, shaped_max_radius(p));
    std::vector<std::vector<uint32_t>> deltas;
    spread_deltas(img, coc, layers, ap, 0.f, deltas, 1);
    ASSERT_EQ(deltas.size(), 3u);
    std::vector<std::vector<uint64_t>> brute(3, std::vector<uint64_t>(size_t(w * h) * 4, 0));
    const uint16_t* lin = srgb_to_linear12();
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float c = coc.at(x, y);
        const int j = dof::layer_of(c == c ? c : 0.f, layers);
        const dof::Splat s = dof::splat_of(c, ap.max_r);
        const uint32_t l[3] = {lin[img.px(x, y)[0]], lin[img.px(x, y)[1]], lin[img.px(x, y)[2]]};
        for (int a = 0; a < 2; ++a) {
          const uint32_t part = a ? s.q : 256u - s.q;
          if (!part) continue;
          const dof::Rect* rects = ap.rects.data() + size_t(s.r + a) * dof::kMaxRects;
          const int nr = ap.counts[size_t(s.r + a)];
          uint32_t v[4];
          dof::splat_values(l, dof::splat_weight(part, dof::clipped_area(rects, nr, x, y, w, h)), v);
          for (int i = 0; i < nr; ++i)
            for (int yy = std::max(0, y + rects[i].y0); yy <= std::min(h - 1, y + rects[i].y1); ++yy)
              for (int xx = std::max(0, x + rects[i].x0); xx <= std::min(w - 1, x + rects[i].x1); ++xx)
                for (int k = 0; k < 4; ++k)
                  brute[size_t(j)][(size_t(yy) * size_t(w) + size_t(xx)) * 4 + size_t(k)] += v[k];
        }
      }
    for (int j = 0; j < 3; ++j) {
      // The uint32 SAT of the deltas, as dof_spread_blur builds it.
      std::vector<uint32_t>& d = deltas[size_t(j)];
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int k = 0; k < 4; ++k) {
            uint32_t& o = d[(size_t(y) * size_t(w) + size_t(x)) * 4 + size_t(k)];
            if (x > 0) o += d[(size_t(y) * size_t(w) + size_t(x - 1)) * 4 + size_t(k)];
          }
      for (int y = 1; y < h; ++y)
        for (size_t i = 0; i < size_t(w) * 4; ++i)
          d[size_t(y) * size_t(w) * 4 + i] += d[size_t(y - 1) * size_t(w) * 4 + i];
      for (size_t i = 0; i < d.size(); ++i) {
        ASSERT_LT(brute[size_t(j)][i], uint64_t(1) << 32);
        ASSERT_EQ(uint64_t(d[i]), brute[size_t(j)][i])
            << to_string(shape) << " layer " << j << " element " << i;
      }
    }
  }
}

// splat_weight's 32-bit quotient is the 64-bit round(kSpreadOne part / (256 area)) for every share and
// every area up to 20000 pixels, the largest clipped area ((2 kMaxShapedRadius + 1)^2) and random ones
// between.
TEST(SpreadMode, SplatWeightIsTheRoundedQuotient) {
  const auto wide = [](uint32_t part, uint32_t area) {
    const uint64_t d = uint64_t(area) * 256u;
    return uint32_t((uint64_t(dof::kSpreadOne) * part + d / 2) / d);
  };
  const uint32_t max_area = uint32_t(2 * dof::kMaxShapedRadius + 1) * uint32_t(2 * dof::kMaxShapedRadius + 1);
  std::mt19937 rng(test::fresh_seed());
  for (uint32_t part = 1; part <= 256; ++part) {
    for (uint32_t area = 1; area <= 20000; ++area) ASSERT_EQ(dof::splat_weight(part, area), wide(part, area));
    for (uint32_t area : {max_area, max_area - 1, 65535u, 65536u, 65537u})
      ASSERT_EQ(dof::splat_weight(part, area), wide(part, area)) << area;
    for (int i = 0; i < 2000; ++i) {
      const uint32_t area = 20001u + rng() % (max_area - 20000u);
      ASSERT_EQ(dof::splat_weight(part, area), wide(part, area)) << part << " " << area;
    }
  }
}

// merge_bands (the GPU's rectangles) covers the same pixels as the aperture table with fewer rectangles,
// and gives bit for bit the same delta images, the apertures clipped at every border (radii up to 9 on a
// 13 x 11 image), for every shape.
TEST(SpreadMode, MergedBandsGiveTheSameDeltas) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  int merged = 0;
  for (ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon, ApertureShape::Square})
    for (int blades : {5, 6, 8}) {
      Params p = spread_params(9.5f, shape);
      p.blades = blades, p.blade_rotation = 7.f * float(blades);
      const ApertureTable ap = aperture_table(p, shaped_max_radius(p)), m = merge_bands(ap);
      for (int r = 0; r <= ap.max_r; ++r) {
        ASSERT_LE(m.counts[size_t(r)], ap.counts[size_t(r)]);
        merged += ap.counts[size_t(r)] - m.counts[size_t(r)];
        std::vector<int> a(41 * 41, 0), b(41 * 41, 0);  // coverage of each aperture pixel
        for (int pass = 0; pass < 2; ++pass) {
          const ApertureTable& t = pass ? m : ap;
          for (int i = 0; i < t.counts[size_t(r)]; ++i) {
            const dof::Rect q = t.rects[size_t(r) * dof::kMaxRects + size_t(i)];
            for (int y = q.y0; y <= q.y1; ++y)
              for (int x = q.x0; x <= q.x1; ++x) ++(pass ? b : a)[size_t((y + 20) * 41 + x + 20)];
          }
        }
        ASSERT_EQ(a, b) << to_string(shape) << " radius " << r;
      }
      const int w = 13, h = 11;
      const ImageRGBA8 img = test::random_image(w, h, seed);
      const ImageF coc = random_coc(w, h, 9.5f, seed + 1, true);
      const dof::Layers layers = make_layers(p, 3);
      std::vector<std::vector<uint32_t>> d0, d1;
      spread_deltas(img, coc, layers, ap, 0.f, d0, 1);
      spread_deltas(img, coc, layers, m, 0.f, d1, 1);
      EXPECT_EQ(d0, d1) << to_string(shape) << " blades " << blades;
    }
  EXPECT_GT(merged, 0);
}

// Each splat carries weight kSpreadOne over its clipped aperture (to 1/2 unit per pixel of it), so the
// weights over the image add up to n kSpreadOne: no energy lost at the border or gained in overlaps.
TEST(SpreadMode, SplatsKeepTheirEnergyInsideTheImage) {
  const int w = 31, h = 19;
  const Params p = spread_params(9.f);
  const ImageRGBA8 img = test::random_image(w, h, test::fresh_seed());
  const ImageF coc = random_coc(w, h, 9.f, test::fresh_seed());
  const dof::Layers layers = make_layers(p, p.dof_layers);
  const ApertureTable ap = aperture_table(p, 9);
  std::vector<std::vector<uint32_t>> deltas;
  spread_deltas(img, coc, layers, ap, 0.f, deltas, 2);
  // The spread weights (the deltas' 2D prefix sums) over every pixel of every layer.
  double total = 0;
  for (const auto& d : deltas) {
    std::vector<uint32_t> col(size_t(w), 0u);
    for (int y = 0; y < h; ++y) {
      uint32_t run = 0;
      for (int x = 0; x < w; ++x) {
        run += d[(size_t(y) * size_t(w) + size_t(x)) * 4 + 3];
        col[size_t(x)] += run;
        total += double(col[size_t(x)]);
      }
    }
  }
  const double n = double(w) * h, one = dof::kSpreadOne;
  EXPECT_NEAR(total / (n * one), 1.0, 2 * 0.5 * w * h / one);
}

TEST(SpreadMode, FlatImageStaysFlatWhateverTheCoc) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (ApertureShape shape : {ApertureShape::Square, ApertureShape::Disc, ApertureShape::Polygon})
    for (int value : {0, 1, 97, 200, 255}) {
      Params p = spread_params(9.f, shape);
      p.dof_layers = 5;
      ImageRGBA8 img(37, 23);
      for (size_t i = 0; i < img.pixels(); ++i) {
        uint8_t* px = img.data.data() + i * 4;
        px[0] = uint8_t(value), px[1] = 31, px[2] = uint8_t(255 - value), px[3] = 255;
      }
      ImageRGBA8 out;
      dof_spread_blur(img, random_coc(37, 23, 9.f, seed), p, out, 2);
      EXPECT_EQ(out.data, img.data) << to_string(shape) << " value " << value;
    }
}

TEST(SpreadMode, ZeroAndNanCocAreTheIdentity) {
  const ImageRGBA8 img = test::random_image(41, 19, test::fresh_seed());
  ImageRGBA8 out;
  dof_spread_blur(img, ImageF(41, 19, 1), spread_params(12.f), out, 2);
  EXPECT_EQ(out.data, img.data);
  ImageF nan(41, 19, 1);
  for (auto& c : nan.data) c = std::nanf("");
  dof_spread_blur(img, nan, spread_params(12.f), out, 1);
  EXPECT_EQ(out.data, img.data);
}

// Focus on the background: the blurred foreground spreads over the sharp background (half-transparent at
// its silhouette), and just inside its silhouette the background shows through.
TEST(SpreadMode, SpreadsABlurredForegroundOverTheSharpBackground) {
  const test::TwoPlanes s(8.f, 0.f);
  ImageRGBA8 out;
  dof_spread_blur(s.img, s.coc, spread_params(8.f), out, 1);
  EXPECT_GT(out.px(37, 32)[0], 60);  // 3 px outside the left edge: red spread over the background
  EXPECT_LT(out.px(30, 32)[0], 5);   // beyond the CoC: the sharp background
  EXPECT_EQ(out.px(30, 32)[1], s.img.px(30, 32)[1]);
  EXPECT_GT(out.px(40, 32)[1], 20);  // just inside: the background through the rim
  EXPECT_LT(out.px(40, 32)[0], 200);
  EXPECT_GT(out.px(55, 32)[0], 225);  // the middle of the square: opaque red
}

// Focus on the foreground: the sharp square stays sharp and its colour does not leak into the blurred
// background around it (the background's layer is normalised by its own weight).
TEST(SpreadMode, KeepsASharpForegroundOutOfTheBlurredBackground) {
  const test::TwoPlanes s(0.f, -8.f);
  ImageRGBA8 out;
  dof_spread_blur(s.img, s.coc, spread_params(8.f), out, 1);
  EXPECT_LT(out.px(36, 32)[0], 5);
  EXPECT_EQ(out.px(55, 32)[0], 230);
  EXPECT_EQ(out.px(40, 16)[0], 230);  // its corner too
}

// Through the CPU pipeline: a depth map of one value and one with NaNs give defined, repeatable results,
// equal to the reference called directly.
TEST(SpreadMode, DegenerateDepthMapsGiveADefinedResult) {
  const ImageRGBA8 img = test::random_image(29, 17, test::fresh_seed());
  auto pipe = make_cpu_pipeline(2);
  Params p = spread_params(24.f);
  p.focus = 0.6f;
  pipe->set_image(img);
  pipe->set_params(p);
  ImageF depth(29, 17, 1);
  for (auto& d : depth.data) d = 0.37f;
  pipe->set_depth(depth);
  pipe->run();
  ImageF flat(29, 17, 1);
  for (auto& c : flat.data) c = coc_from_depth(0.f, p);
  ImageRGBA8 ref;
  dof_spread_blur(img, flat, p, ref, 1);
  EXPECT_EQ(pipe->result().data, ref.data);
  for (size_t i = 0; i < depth.data.size(); i += 3) depth.data[i] = std::nanf("");
  pipe->set_depth(depth);
  pipe->run();
  const ImageRGBA8 first = pipe->result();
  pipe->run();
  EXPECT_EQ(pipe->result().data, first.data);
  dof_spread_blur(img, pipe->coc(), p, ref, 1);
  EXPECT_EQ(first.data, ref.data);
}
