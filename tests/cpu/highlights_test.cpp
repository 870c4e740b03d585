// Bokeh highlights' CPU reference (core/highlights.cpp): the splat conserves energy on a synthetic image
// within the fixed-point bound, sprites have the aperture's shape, the far slice hides behind nearer
// pixels, the cap, an image without highlights is left exactly as the gather made it, NaN and flat depth,
// and bad parameters.
#include "core/highlights.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/highlights_pixel.hpp"
#include "core/pipeline.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

Params highlight_params(float max_radius) {
  Params p;
  p.highlights = true;
  p.highlight_threshold = 0.5f;
  p.highlight_gain = 1.f;
  p.max_radius = max_radius;
  p.dof_mode = "gather_linear";
  return p;
}

ImageF flat_coc(int w, int h, float c) {
  ImageF coc(w, h, 1);
  for (auto& v : coc.data) v = c;
  return coc;
}

// One frame through two CPU pipelines: `off` as given, and the same parameters with highlights on.
struct OffOn {
  std::unique_ptr<Pipeline> off, on;
};
OffOn run_off_on(const ImageRGBA8& img, const ImageF& depth, const Params& off) {
  Params on = off;
  on.highlights = true;
  OffOn r{make_cpu_pipeline(1), make_cpu_pipeline(1)};
  for (auto* pipe : {r.off.get(), r.on.get()}) pipe->set_image(img), pipe->set_depth(depth);
  r.off->set_params(off), r.on->set_params(on);
  r.off->run(), r.on->run();
  return r;
}

bool in_shape(const ApertureTable& t, int r, int dx, int dy) {
  for (int i = 0; i < t.counts[size_t(r)]; ++i) {
    const dof::Rect q = t.rects[size_t(r) * dof::kMaxRects + size_t(i)];
    if (dx >= q.x0 && dx <= q.x1 && dy >= q.y0 && dy <= q.y1) return true;
  }
  return false;
}

}  // namespace

// Black image with scattered unclipped highlights (some at the borders), flat CoC behind the focus plane:
// every sprite's energy reaches the splat, sum over the frame = sum of the sprites' linear values, up to
// the rounding of the fixed-point weight (0.5 unit per pixel of each sprite's clipped shape).
TEST(Highlights, SplatConservesEnergyOnASyntheticImage) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (const ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon, ApertureShape::Square}) {
    const int w = 97, h = 61;
    ImageRGBA8 img(w, h);
    for (size_t i = 0; i < img.pixels(); ++i) img.data[i * 4 + 3] = 255;
    for (int k = 0; k < 40; ++k) {
      const int x = int(rng() % uint32_t(w)), y = int(rng() % uint32_t(h));
      uint8_t* px = img.px(x, y);
      for (int c = 0; c < 3; ++c) px[c] = uint8_t(200 + rng() % 55);  // linear >= 0.58, never clipped
    }
    Params p = highlight_params(12.f);
    p.aperture_shape = shape;
    p.blades = 5 + int(rng() % 4);
    const float c = -(1.f + float(rng() % 1100) / 100.f);
    const ImageF coc = flat_coc(w, h, c);
    const HighlightSprites s = highlight_sprites(img, coc, p);
    ASSERT_GT(s.stats.kept, 0u);
    EXPECT_EQ(s.stats.far, s.stats.kept);  // all behind the focus plane
    std::vector<uint32_t> planes, splat;
    highlight_splat(img, coc, s, p, planes);
    highlight_integrate(planes, w, h, splat);
    const ApertureTable ap = aperture_table(p, shaped_max_radius(p));
    const int r = dof::shaped_radius(c, shaped_max_radius(p));
    const uint16_t* lin = srgb_to_linear12();
    const size_t n = img.pixels();
    for (int ch = 0; ch < 3; ++ch) {
      double in = 0, out = 0, bound = 0;
      for (uint32_t i : s.index) {
        in += double(lin[img.data[size_t(i) * 4 + ch]]) * hl::kScale / dof::kLinearOne;
        bound += 0.5 * hl::clipped_area(ap.rects.data() + size_t(r) * dof::kMaxRects, ap.counts[size_t(r)],
                                        int(i % uint32_t(w)), int(i / uint32_t(w)), w, h);
      }
      for (size_t i = 0; i < n; ++i) out += double(splat[size_t(ch) * n + i]);
      EXPECT_LE(std::abs(out - in), bound) << to_string(shape) << " channel " << ch;
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(splat[size_t(3 + ch) * n + i], 0u);  // nothing near
    }
    // The gather's input lost exactly the sprites' colour.
    ImageRGBA8 masked;
    highlight_mask(img, s, masked);
    for (size_t i = 0; i < n * 4; ++i) EXPECT_EQ(masked.data[i] == 0, (i % 4 != 3) || img.data[i] == 0);
  }
}

// One sprite in a corner and one inside: the splat covers exactly the aperture's rectangles (clipped),
// with one value.
TEST(Highlights, SpritesHaveTheAperturesShape) {
  for (const ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon, ApertureShape::Square}) {
    const int w = 53, h = 41;
    for (const int sx : {26, 2}) {
      const int sy = sx == 2 ? 1 : 20;
      ImageRGBA8 img(w, h);
      uint8_t* px = img.px(sx, sy);
      px[0] = px[1] = px[2] = 240;
      Params p = highlight_params(20.f);
      p.aperture_shape = shape;
      p.blades = 6, p.blade_rotation = 17.f;
      const ImageF coc = flat_coc(w, h, 9.4f);  // near: radius 9
      const HighlightSprites s = highlight_sprites(img, coc, p);
      ASSERT_EQ(s.stats.kept, 1u);
      EXPECT_EQ(s.stats.far, 0u);
      std::vector<uint32_t> planes, splat;
      highlight_splat(img, coc, s, p, planes);
      highlight_integrate(planes, w, h, splat);
      const ApertureTable ap = aperture_table(p, shaped_max_radius(p));
      const size_t n = img.pixels();
      const uint32_t v = splat[3 * n + size_t(sy) * w + size_t(sx)];
      EXPECT_GT(v, 0u);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const uint32_t got = splat[3 * n + size_t(y) * w + size_t(x)];
          EXPECT_EQ(got, in_shape(ap, 9, x - sx, y - sy) ? v : 0u)
              << to_string(shape) << " at " << x << "," << y;
        }
    }
  }
}

// An aperture image's sprite is the picture upright behind the focus plane and turned by 180 degrees in
// front of it (ApertureTable::flip_front): the star's rows, mirrored top to bottom and left to right.
TEST(Highlights, APicturesSpriteIsTurnedInFrontOfFocus) {
  const int w = 41, h = 41, sx = 20, sy = 20;
  ImageRGBA8 img(w, h);
  uint8_t* px = img.px(sx, sy);
  px[0] = px[1] = px[2] = 240;
  Params p = highlight_params(12.f);
  p.dof_mode = "spread", p.aperture_image = "star";
  const ApertureTable ap = aperture_table(p, shaped_max_radius(p));
  ASSERT_TRUE(ap.flip_front);
  for (const float c : {-9.4f, 9.4f}) {
    const ImageF coc = flat_coc(w, h, c);
    const HighlightSprites s = highlight_sprites(img, coc, p);
    ASSERT_EQ(s.stats.kept, 1u);
    std::vector<uint32_t> planes, splat;
    highlight_splat(img, coc, s, p, planes);
    highlight_integrate(planes, w, h, splat);
    const size_t plane = c > 0 ? 3 * img.pixels() : 0;
    const uint32_t v = splat[plane + size_t(sy) * w + size_t(sx)];
    EXPECT_GT(v, 0u);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int dx = c > 0 ? sx - x : x - sx, dy = c > 0 ? sy - y : y - sy;  // turned in front
        EXPECT_EQ(splat[plane + size_t(y) * w + size_t(x)], in_shape(ap, 9, dx, dy) ? v : 0u)
            << "CoC " << c << " at " << x << "," << y;
      }
  }
}

// In spread, a soap-bubble lens's sprite is brighter at its rim than in its middle, a mirror lens's dark in
// the middle, and either keeps the sprite's energy (the weighted area of the spread's apertures).
TEST(Highlights, ProfiledSpritesShowTheProfileAndKeepTheEnergy) {
  const int w = 41, h = 41, sx = 20, sy = 20;
  for (const auto& [profile, hole] : {std::pair{1.f, 0.f}, std::pair{0.f, 0.45f}}) {
    ImageRGBA8 img(w, h);
    uint8_t* px = img.px(sx, sy);
    px[0] = px[1] = px[2] = 240;
    Params p = highlight_params(16.f);
    p.dof_mode = "spread", p.bokeh_profile = profile, p.catadioptric = hole;
    ASSERT_TRUE(highlight_profiled(p, *find_dof_mode("spread")));
    const ImageF coc = flat_coc(w, h, -12.f);
    const HighlightSprites s = highlight_sprites(img, coc, p);
    ASSERT_EQ(s.stats.kept, 1u);
    std::vector<uint32_t> planes, splat;
    highlight_splat(img, coc, s, p, planes);
    highlight_integrate(planes, w, h, splat);
    double middle = 0, rim = 0, sum = 0;
    int nm = 0, nr = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double v = double(splat[size_t(y) * w + size_t(x)]);
        const double rho = std::hypot(x - sx, y - sy) / 12.0;
        sum += v;
        if (rho <= 0.25) middle += v, ++nm;
        if (rho >= 0.8 && rho <= 0.95) rim += v, ++nr;
      }
    middle /= nm, rim /= nr;
    if (hole > 0)
      EXPECT_LT(middle, 0.1 * rim);
    else
      EXPECT_GT(rim, 1.5 * middle);
    // The energy: the sprite's linear value in splat units, up to the per-pixel rounding.
    const uint32_t plain_v = [&] {
      Params q = p;
      q.bokeh_profile = q.catadioptric = 0.f;
      std::vector<uint32_t> pl, sp;
      highlight_splat(img, coc, highlight_sprites(img, coc, q), q, pl);
      highlight_integrate(pl, w, h, sp);
      double t = 0;
      for (size_t i = 0; i < img.pixels(); ++i) t += sp[i];
      return uint32_t(t);
    }();
    EXPECT_NEAR(sum, double(plain_v), 0.01 * plain_v) << profile << " " << hole;
  }
}

// A far highlight's bokeh is added only where the pixel itself lies behind the focus plane.
TEST(Highlights, FarBokehHidesBehindNearerPixels) {
  const int w = 41, h = 21;
  ImageRGBA8 img(w, h);
  uint8_t* px = img.px(20, 10);
  px[0] = px[1] = px[2] = 230;
  ImageF coc = flat_coc(w, h, -6.f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < 20; ++x) coc.at(x, y) = 0.f;  // the left half is in focus
  const Params p = highlight_params(8.f);
  const HighlightSprites s = highlight_sprites(img, coc, p);
  ASSERT_EQ(s.stats.far, 1u);
  std::vector<uint32_t> planes;
  highlight_splat(img, coc, s, p, planes);
  ImageRGBA8 result(w, h);
  highlight_add(planes, coc, 0.f, result, 1);
  EXPECT_EQ(result.px(18, 10)[0], 0);  // in focus, in front: hidden
  EXPECT_GT(result.px(22, 10)[0], 0);  // behind the focus plane: bokeh
}

// An all-255 image: every pixel is a clipped highlight; the cap keeps the first ones (raster order), the
// rest stay in the gather, and the stats say the cap was hit.
TEST(Highlights, CapIsHitOnAWhiteImage) {
  const int w = 37, h = 23;
  ImageRGBA8 img(w, h);
  for (auto& b : img.data) b = 255;
  Params p = highlight_params(6.f);
  p.highlight_cap = 100;
  p.highlight_gain = 16.f;
  const ImageF coc = flat_coc(w, h, 3.f);
  const HighlightSprites s = highlight_sprites(img, coc, p);
  EXPECT_EQ(s.stats.found, uint32_t(w * h));
  EXPECT_EQ(s.stats.kept, 100u);
  EXPECT_TRUE(s.stats.cap_hit());
  for (uint32_t i : s.index) EXPECT_LT(i, 100u);
  auto pipe = make_cpu_pipeline(1);
  ImageF depth(w, h, 1);
  pipe->set_image(img);
  pipe->set_depth(depth);
  pipe->set_params(p);
  pipe->run();
  const HighlightStats st = pipe->highlight_stats();
  EXPECT_TRUE(st.valid);
  EXPECT_EQ(st.cap, 100u);
}

// No pixel passes the test (threshold above every pixel, or every CoC below the minimum radius): the frame
// equals the highlights-off frame bit for bit, in every mode. NaN depth: no sprite, no crash.
TEST(Highlights, NoHighlightsLeavesTheGatherUnchanged) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{1, 29}, std::pair{31, 1}, std::pair{43, 37}}) {
    ImageRGBA8 img = test::random_image(w, h, seed + uint32_t(w));
    for (size_t i = 0; i < img.pixels(); ++i) img.data[i * 4] = std::min<uint8_t>(img.data[i * 4], 200);
    ImageF depth(w, h, 1);
    for (auto& d : depth.data) d = float(rng() % 1000) / 1000.f;
    if (w * h > 1) depth.data[0] = NAN;
    for (const char* mode : {"gather_box", "gather_shape", "gather_linear", "layered", "spread"}) {
      Params off;
      off.dof_mode = mode;
      off.max_radius = 7.f;
      off.highlight_threshold = 1.f;  // no pixel below 255 in every channel reaches luminance 1
      const OffOn r = run_off_on(img, depth, off);
      EXPECT_EQ(r.off->result().data, r.on->result().data) << mode << " " << w << "x" << h;
      EXPECT_EQ(r.on->highlight_stats().found, 0u);
    }
  }
}

TEST(Highlights, NanCocIsNoSprite) {
  ImageRGBA8 img(3, 1);
  for (auto& b : img.data) b = 255;
  ImageF coc = flat_coc(3, 1, NAN);
  coc.data[1] = 5.f;
  const HighlightSprites s = highlight_sprites(img, coc, highlight_params(8.f));
  ASSERT_EQ(s.stats.kept, 1u);
  EXPECT_EQ(s.index[0], 1u);
}

TEST(Highlights, SortsBackToFrontStably) {
  const int w = 8, h = 1;
  ImageRGBA8 img(w, h);
  for (auto& b : img.data) b = 250;
  ImageF coc(w, h, 1);
  const float c[8] = {3.f, -5.f, 2.f, -5.f, -1.f, 7.f, 3.f, -9.f};
  for (int i = 0; i < 8; ++i) coc.data[size_t(i)] = c[i];
  const HighlightSprites s = highlight_sprites(img, coc, highlight_params(10.f));
  EXPECT_EQ(s.index, (std::vector<uint32_t>{7, 1, 3, 4, 2, 0, 6, 5}));
  EXPECT_EQ(s.stats.far, 4u);
}

TEST(Highlights, BadParametersAreOneLineErrors) {
  Params p;
  p.highlight_threshold = 1.5f;
  EXPECT_THROW(validate(p), Error);
  p = Params{}, p.highlight_gain = 0.5f;
  EXPECT_THROW(validate(p), Error);
  p = Params{}, p.highlight_cap = 0;
  EXPECT_THROW(validate(p), Error);
  p = Params{}, p.highlight_threshold = NAN;
  EXPECT_THROW(validate(p), Error);
}

// Pixels no sprite reaches keep their gathered values exactly, also under a camera response, whose decode
// gives some of the darkest 8-bit values one 12-bit code (a round trip through the tables would move them).
TEST(Highlights, PixelsNoSpriteReachesKeepTheGatheredValue) {
  const int w = 40, h = 30;
  ImageRGBA8 img(w, h);
  for (size_t i = 0; i < img.pixels(); ++i)
    for (int c = 0; c < 4; ++c) img.data[i * 4 + c] = c == 3 ? 255 : uint8_t(1 + (i + size_t(c)) % 12);
  for (int c = 0; c < 3; ++c) img.px(2, 2)[c] = 255;  // one clipped light in a corner
  ImageF depth(w, h, 1);
  for (auto& d : depth.data) d = 1.f;  // far behind the focus (depth 0, the last pixel): a CoC of max_radius
  depth.data.back() = 0.f;
  for (const float shoulder : {0.f, 0.4f})
    for (const DofMode& m : dof_modes()) {
      Params off;
      off.dof_mode = m.name;
      off.max_radius = 3.f;
      off.focus = 0.f;
      off.response_shoulder = shoulder;
      const OffOn r = run_off_on(img, depth, off);
      Pipeline *a = r.off.get(), *b = r.on.get();
      ASSERT_EQ(b->highlight_stats().found, 1u) << m.name;
      size_t moved = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          if (x > 2 + 3 || y > 2 + 3)  // beyond the sprite's reach
            for (int c = 0; c < 3; ++c) moved += a->result().px(x, y)[c] != b->result().px(x, y)[c];
      EXPECT_EQ(moved, 0u) << m.name << " shoulder " << shoulder;
    }
}
