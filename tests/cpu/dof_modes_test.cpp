// The shaped, linear-light and layered DoF modes' CPU reference (core/dof.cpp): aperture tables, the
// transfer tables, invariants every mode must keep (a flat image stays flat, zero CoC is the identity),
// what linear light and occlusion change, and bad parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>

#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

const char* const kShapedModes[] = {"gather_shape", "gather_linear", "layered"};

ImageF random_coc(int w, int h, float m, uint32_t seed) {
  ImageF c(w, h, 1);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-m, m);
  for (auto& v : c.data) v = u(rng);
  return c;
}

long area_of(const ApertureTable& t, int r) {
  long a = 0;
  for (int i = 0; i < t.counts[size_t(r)]; ++i) {
    const dof::Rect q = t.rects[size_t(r) * dof::kMaxRects + size_t(i)];
    a += long(q.x1 - q.x0 + 1) * long(q.y1 - q.y0 + 1);
  }
  return a;
}

bool contains(const ApertureTable& t, int r, int x, int y) {
  for (int i = 0; i < t.counts[size_t(r)]; ++i) {
    const dof::Rect q = t.rects[size_t(r) * dof::kMaxRects + size_t(i)];
    if (q.x0 <= x && x <= q.x1 && q.y0 <= y && y <= q.y1) return true;
  }
  return false;
}

}  // namespace

TEST(DofModes, ListedOnceWithGatherBoxFirst) {
  ASSERT_GE(dof_modes().size(), 4u);
  EXPECT_STREQ(dof_modes()[0].name, "gather_box");
  for (const char* m : kShapedModes) EXPECT_NE(find_dof_mode(m), nullptr) << m;
  EXPECT_EQ(find_dof_mode("nope"), nullptr);
}

// A mode is its registry entry: found at its id, with its CPU entry point, its capabilities and its bytes
// model; only gather_box gathers a square whatever Params::aperture_shape says.
TEST(DofModes, EachEntrySitsAtItsIdWithItsEntryPointAndCapabilities) {
  ASSERT_EQ(dof_modes().size(), size_t(kDofModes));
  Params disc;
  disc.aperture_shape = ApertureShape::Disc;
  for (size_t i = 0; i < dof_modes().size(); ++i) {
    const DofMode& m = dof_modes()[i];
    EXPECT_EQ(size_t(m.id), i) << m.name;
    EXPECT_EQ(&dof_mode(m.id), &m) << m.name;
    EXPECT_EQ(find_dof_mode(m.name), &m) << m.name;
    EXPECT_NE(m.cpu, nullptr) << m.name;
    EXPECT_NE(m.dram_bytes, nullptr) << m.name;
    EXPECT_TRUE(m.highlights) << m.name;
    EXPECT_EQ(m.aperture(disc), m.id == DofModeId::GatherBox ? ApertureShape::Square : ApertureShape::Disc)
        << m.name;
    EXPECT_EQ(m.max_radius, m.id == DofModeId::GatherBox ? float(kMaxBlurRadius) : float(dof::kMaxShapedRadius))
        << m.name;
  }
  Params p;
  p.dof_mode = "layered";
  EXPECT_EQ(&dof_mode_of(p), &dof_mode(DofModeId::Layered));
  p.dof_mode = "nope";
  EXPECT_THROW(dof_mode_of(p), Error);
}

// The bytes model counts what must cross DRAM: image and CoC read, result written (12 B per pixel), and the
// 16 B per pixel of tables written and read once only where they exceed the cache.
TEST(DofModes, BytesModelCountsTheTablesOnlyWhereTheyExceedTheCache) {
  const size_t l2 = size_t(50) << 20;
  for (const DofMode& m : dof_modes()) {
    const Params p;
    EXPECT_EQ(m.dram_bytes(3840, 2160, p, l2), 44.0 * 3840 * 2160) << m.name;  // 133 MB of tables
    EXPECT_EQ(m.dram_bytes(640, 480, p, l2), 12.0 * 640 * 480) << m.name;      // 4.9 MB: they stay in L2
    EXPECT_EQ(m.dram_bytes(640, 480, p, 0), 44.0 * 640 * 480) << m.name;
  }
}

// Each mode's CPU entry point is its reference: gather_box's the box blur over the image's SAT (fractional
// or not), the others' dof_shaped_blur and dof_spread_blur; its phases are the GPU's.
TEST(DofModes, CpuEntryPointsAreTheReferences) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const ImageRGBA8 img = test::random_image(53, 29, seed);
  const ImageF coc = random_coc(53, 29, 7.f, seed + 1);
  for (const DofMode& m : dof_modes())
    for (const bool fractional : {false, true}) {
      Params p;
      p.dof_mode = m.name, p.max_radius = 7.f, p.dof_layers = 3, p.fractional_radius = fractional;
      DofCpuWorkspace ws;
      ImageRGBA8 got, want;
      std::vector<std::string> phases;
      DofCpuArgs a;
      a.image = &img, a.coc = &coc, a.params = &p, a.out = &got, a.threads = 2, a.workspace = &ws;
      a.phase = [&](const char* name) { phases.push_back(name); };
      m.run_cpu(a);
      if (m.id == DofModeId::GatherBox) {
        std::vector<uint32_t> sat;
        sat_rgba8(img, sat);
        want = fractional ? dof_blur_fractional(img, sat, coc) : dof_blur(img, sat, coc);
        EXPECT_EQ(phases, (std::vector<std::string>{"sat", "blur"}));
      } else if (m.spread) {
        dof_spread_blur(img, coc, p, want, 2);
      } else {
        dof_shaped_blur(img, coc, p, want, 2);
      }
      EXPECT_EQ(got.data, want.data) << m.name << (fractional ? " fractional" : "");
      EXPECT_FALSE(phases.empty()) << m.name;
    }
}

// Apertures r and r + 1 blended by the fractional CoC f should spread as the lens does: the same second
// moment (core/dof.cpp, aperture_table), which puts aperture r's mean x^2 + y^2 over its pixels at
// k (r^2 - 1/6) (k = 1/2 for the disc). The pixel squares' union then has the lens's radius of gyration
// sqrt(2 (M + 1/6)) up to the steps the pixels allow: measured at most 0.41 px while a band is one row
// (r <= 3) and 0.27 px beyond, for the disc and every polygon below; the bounds are 0.45 and 0.3 px (the
// old table, every aperture drawn at radius r + 1/2, was about 0.5 px too wide at every radius).
TEST(Aperture, EveryApertureHasTheSecondMomentOfItsBlend) {
  for (ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon})
    for (int blades = 5; blades <= (shape == ApertureShape::Disc ? 5 : 8); ++blades)
      for (float rotation : {0.f, 13.f, 45.f, 211.f}) {
        Params p;
        p.aperture_shape = shape, p.blades = blades, p.blade_rotation = rotation;
        const ApertureTable t = aperture_table(p, dof::kMaxShapedRadius);
        EXPECT_EQ(area_of(t, 0), 1);
        for (int r = 1; r <= dof::kMaxShapedRadius; ++r) {
          const int n = t.counts[size_t(r)];
          const double m = aperture_second_moment(&t.rects[size_t(r) * dof::kMaxRects], n);
          const double target = aperture_moment_target(p, r);
          ASSERT_NEAR(std::sqrt(2 * (m + 1.0 / 6)), std::sqrt(2 * (target + 1.0 / 6)), r <= 3 ? 0.45 : 0.3)
              << to_string(shape) << " " << blades << " blades, rotation " << rotation << ", radius " << r;
          ASSERT_TRUE(contains(t, r, 0, 0)) << "radius " << r;
          ASSERT_LE(n, dof::kMaxRects - 1);
          // The spread's weight budget (core/dof_spread_pixel.hpp, kSpreadOne) takes this as given.
          ASSERT_GE(area_of(t, r), long(r) * r) << "radius " << r;
          // Bands of rows, top to bottom and disjoint in y (shaders/highlight_splat.frag relies on it).
          for (int i = 1; i < n; ++i) ASSERT_GT(t.rects[size_t(r) * dof::kMaxRects + size_t(i)].y0,
                                                t.rects[size_t(r) * dof::kMaxRects + size_t(i) - 1].y1);
        }
      }
}

// The disc's apertures: area pi r^2 to within 4% from radius 2 on (measured: 0.964 at radius 10 to 1.035
// at radius 2), mirror-symmetric in x and in y at every radius, symmetric under x <-> y while each band is
// a row (radius <= 3), corners outside from radius 2; the smallest ones as drawn.
TEST(Aperture, DiscIsSymmetricAndCoversItsCircle) {
  Params p;
  p.aperture_shape = ApertureShape::Disc;
  const ApertureTable t = aperture_table(p, dof::kMaxShapedRadius);
  EXPECT_EQ(area_of(t, 1), 5);   // the plus: the nearest of 1, 5 and 9 pixels to its target
  EXPECT_EQ(area_of(t, 2), 13);  // rows of 1, 3, 5, 3, 1
  for (int r = 1; r <= dof::kMaxShapedRadius; ++r) {
    const int n = t.counts[size_t(r)];
    if (r >= 2) {
      EXPECT_NEAR(double(area_of(t, r)) / (M_PI * r * r), 1.0, 0.04) << "radius " << r;
      EXPECT_FALSE(contains(t, r, r, r)) << "corners are outside a disc, radius " << r;
    }
    for (int i = 0; i < n; ++i) {
      const dof::Rect q = t.rects[size_t(r) * dof::kMaxRects + size_t(i)],
                      m = t.rects[size_t(r) * dof::kMaxRects + size_t(n - 1 - i)];
      ASSERT_EQ(q.x0, -q.x1) << "radius " << r;
      ASSERT_TRUE(q.y0 == -m.y1 && q.y1 == -m.y0 && q.x1 == m.x1) << "radius " << r;
    }
    if (r <= 3) {
      for (int y = -r; y <= r; ++y)
        for (int x = -r; x <= r; ++x) ASSERT_EQ(contains(t, r, x, y), contains(t, r, y, x)) << "radius " << r;
    }
  }
}

// The layered composite skips a layer (and a table behind the nearest layer) when its count over the square
// of radius r is 0: exact only if every radius-r shape lies within that square.
TEST(Aperture, EveryShapeLiesWithinTheSquareOfItsRadius) {
  for (ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon, ApertureShape::Square})
    for (int blades = 5; blades <= 8; ++blades)
      for (float rotation : {0.f, 13.f, 45.f, 90.f, 211.f}) {
        Params p;
        p.aperture_shape = shape, p.blades = blades, p.blade_rotation = rotation;
        const ApertureTable t = aperture_table(p, 80);
        for (int r = 0; r <= 80; ++r)
          for (int i = 0; i < t.counts[size_t(r)]; ++i) {
            const dof::Rect q = t.rects[size_t(r) * dof::kMaxRects + size_t(i)];
            EXPECT_TRUE(q.x0 >= -r && q.x1 <= r && q.y0 >= -r && q.y1 <= r && q.x0 <= q.x1 && q.y0 <= q.y1)
                << to_string(shape) << " " << blades << " blades, rotation " << rotation << ", radius " << r;
          }
      }
}

TEST(Aperture, SquareIsOneBoxAndPolygonsAreSmallerThanTheirDisc) {
  Params p;
  p.aperture_shape = ApertureShape::Square;
  const ApertureTable sq = aperture_table(p, 10);
  EXPECT_EQ(sq.counts[10], 1);
  EXPECT_EQ(area_of(sq, 10), 21 * 21);
  p.aperture_shape = ApertureShape::Disc;
  const ApertureTable disc = aperture_table(p, 30);
  p.aperture_shape = ApertureShape::Polygon;
  for (int blades = 5; blades <= 8; ++blades) {
    p.blades = blades;
    p.blade_rotation = 17.f * float(blades);
    const ApertureTable poly = aperture_table(p, 30);
    const double ratio = double(area_of(poly, 30)) / double(area_of(disc, 30));
    const double expected = 0.5 * blades * std::sin(2 * M_PI / blades) / M_PI;  // inscribed polygon / circle
    EXPECT_NEAR(ratio, expected, 0.06) << blades << " blades";
    EXPECT_TRUE(contains(poly, 30, 0, 0));
  }
}

// The blade rotation turns the polygon: a turn by its symmetry's angle (360 / blades) gives the same pixels,
// half of it other pixels (vertices where edges were). The disc and the square ignore it.
TEST(Aperture, BladeRotationTurnsThePolygon) {
  const auto pixels = [](ApertureShape shape, int blades, float rotation, int r) {
    Params p;
    p.aperture_shape = shape, p.blades = blades, p.blade_rotation = rotation;
    const ApertureTable t = aperture_table(p, r);
    std::vector<bool> in;
    for (int y = -r; y <= r; ++y)
      for (int x = -r; x <= r; ++x) in.push_back(contains(t, r, x, y));
    return in;
  };
  for (int blades = 5; blades <= 8; ++blades) {
    const float period = 360.f / float(blades);
    for (int r : {12, 30}) {
      const auto base = pixels(ApertureShape::Polygon, blades, 10.f, r);
      EXPECT_EQ(pixels(ApertureShape::Polygon, blades, 10.f + period, r), base)
          << blades << " blades, radius " << r;
      EXPECT_NE(pixels(ApertureShape::Polygon, blades, 10.f + 0.5f * period, r), base)
          << blades << " blades, radius " << r;
    }
  }
  for (ApertureShape shape : {ApertureShape::Disc, ApertureShape::Square})
    EXPECT_EQ(pixels(shape, 6, 0.f, 20), pixels(shape, 6, 25.f, 20)) << to_string(shape);
}

// Anamorphic squeeze (Params::anamorphic): an oval (a squeezed polygon) of the radius's width and a
// squeeze-th of its height, turned by the rotation; the blend's second moment as for the round shapes
// (squeezed: k times the mean of the axes' squared scales; the radius of gyration within 0.45 px or 2%,
// squeezed_aperture matching each axis rather than the sum), the
// centre in, within the square of the radius, and the spread's weight budget (core/dof_spread_pixel.hpp, kSpreadOne) kept: the weights reaching a
// pixel, at most 1 + sum over d of 8 d / (the least area of the apertures of radius d and more), below 100.
TEST(Aperture, AnamorphicSqueezeKeepsTheSpreadsWeightBudget) {
  double worst = 0;
  for (ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon, ApertureShape::Square})
    for (float squeeze : {0.25f, 0.5f, 1.f, 2.f, 4.f})
      for (float rotation : {0.f, 45.f}) {
        Params p;
        p.aperture_shape = shape, p.blades = 5, p.blade_rotation = rotation, p.anamorphic = squeeze;
        const ApertureTable t = aperture_table(p, dof::kMaxShapedRadius);
        double least = 1e300, sum = 1;
        for (int r = dof::kMaxShapedRadius; r >= 1; --r) {
          least = std::min(least, double(area_of(t, r)));
          sum += 8.0 * r / least;
        }
        worst = std::max(worst, sum);
        EXPECT_LT(sum, 100.0) << to_string(shape) << " squeeze " << squeeze << " rotation " << rotation;
      }
  std::printf("the most weight a pixel can gather: %.1f kSpreadOne\n", worst);
}

TEST(Aperture, AnamorphicSqueezeMakesOvalsThatTurn) {
  const auto mask = [](const Params& p, int r) {
    const ApertureTable t = aperture_table(p, r);
    std::vector<bool> in;
    for (int y = -r; y <= r; ++y)
      for (int x = -r; x <= r; ++x) in.push_back(contains(t, r, x, y));
    return in;
  };
  const auto iou = [](const std::vector<bool>& a, const std::vector<bool>& b) {
    long both = 0, any = 0;
    for (size_t i = 0; i < a.size(); ++i) both += a[i] && b[i], any += a[i] || b[i];
    return double(both) / double(any);
  };
  const auto transpose = [](const std::vector<bool>& a, int r) {
    std::vector<bool> t(a.size());
    const int n = 2 * r + 1;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) t[size_t(x * n + y)] = a[size_t(y * n + x)];
    return t;
  };
  for (ApertureShape shape : {ApertureShape::Disc, ApertureShape::Polygon})
    for (float squeeze : {0.25f, 0.5f, 0.8f, 2.f, 4.f})
      for (float rotation : {0.f, 30.f, 90.f}) {
        Params p;
        p.aperture_shape = shape, p.blades = 6, p.blade_rotation = rotation, p.anamorphic = squeeze;
        ASSERT_NO_THROW(validate(p));
        const ApertureTable t = aperture_table(p, 64);
        for (int r = 1; r <= 64; ++r) {
          const int n = t.counts[size_t(r)];
          const double m = aperture_second_moment(&t.rects[size_t(r) * dof::kMaxRects], n);
          const double target = aperture_moment_target(p, r);
          const double gyration = std::sqrt(2 * (target + 1.0 / 6));
          ASSERT_NEAR(std::sqrt(2 * (m + 1.0 / 6)), gyration, r <= 3 ? 0.6 : std::max(0.45, 0.02 * gyration))
              << to_string(shape) << " squeeze " << squeeze << ", rotation " << rotation << ", radius " << r;
          ASSERT_TRUE(contains(t, r, 0, 0)) << "radius " << r;
          for (int i = 0; i < n; ++i) {
            const dof::Rect q = t.rects[size_t(r) * dof::kMaxRects + size_t(i)];
            ASSERT_TRUE(q.x0 >= -r && q.x1 <= r && q.y0 >= -r && q.y1 <= r && q.x0 <= q.x1 && q.y0 <= q.y1);
            if (i > 0) ASSERT_GT(q.y0, t.rects[size_t(r) * dof::kMaxRects + size_t(i) - 1].y1);
          }
        }
      }
  Params wide;
  wide.anamorphic = 2.f;
  const int r = 30;
  const ApertureTable t = aperture_table(wide, r);
  int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  for (int i = 0; i < t.counts[r]; ++i) {
    const dof::Rect q = t.rects[size_t(r) * dof::kMaxRects + size_t(i)];
    x0 = std::min<int>(x0, q.x0), x1 = std::max<int>(x1, q.x1), y0 = std::min<int>(y0, q.y0), y1 = std::max<int>(y1, q.y1);
  }
  EXPECT_NEAR(x1 - x0 + 1, 61, 2);
  EXPECT_NEAR(y1 - y0 + 1, 31, 2);
  EXPECT_NEAR(double(area_of(t, r)) / (M_PI * r * r / 2), 1.0, 0.06);
  // A wide oval turned a quarter is the tall one, and the tall one's transpose.
  Params turned = wide, tall;
  turned.blade_rotation = 90.f, tall.anamorphic = 0.5f;
  EXPECT_GE(iou(mask(turned, r), mask(tall, r)), 0.85);  // a wrong turn gives about 1/3
  EXPECT_GE(iou(mask(tall, r), transpose(mask(wide, r), r)), 0.85);
  // Turned by 45 degrees (clockwise on screen, y down), its long axis runs down-right: (12, 12) in, (12, -12) out.
  Params lean = wide;
  lean.blade_rotation = 45.f;
  const ApertureTable l = aperture_table(lean, r);
  EXPECT_TRUE(contains(l, r, 12, 12));
  EXPECT_FALSE(contains(l, r, 12, -12));
  // The square squeezed: one box of the radius's width and half its height.
  Params sq = wide;
  sq.aperture_shape = ApertureShape::Square;
  const ApertureTable s10 = aperture_table(sq, 10);
  EXPECT_EQ(s10.counts[10], 1);
  EXPECT_EQ(area_of(s10, 10), 21 * 11);
}

TEST(TransferTables, EverySrgbValueSurvivesTheLinearRoundTrip) {
  const uint16_t* lin = srgb_to_linear12();
  const uint8_t* enc = linear12_to_srgb();
  for (int s = 0; s < 256; ++s) EXPECT_EQ(enc[lin[s]], s) << s;
  EXPECT_EQ(lin[0], 0);
  EXPECT_EQ(lin[255], dof::kLinearOne);
  EXPECT_EQ(lin[188], 2059);  // sRGB 188 is about half the light of 255
}

TEST(ShapedModes, FlatImageStaysFlatWhateverTheCoc) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const char* mode : kShapedModes)
    for (ApertureShape shape : {ApertureShape::Square, ApertureShape::Disc, ApertureShape::Polygon}) {
      Params p;
      p.dof_mode = mode;
      p.aperture_shape = shape;
      p.max_radius = 9.f;
      p.dof_layers = 5;
      ImageRGBA8 img(37, 23);
      for (size_t i = 0; i < img.pixels(); ++i) {
        uint8_t* px = img.data.data() + i * 4;
        px[0] = 200, px[1] = 31, px[2] = 97, px[3] = 255;
      }
      ImageRGBA8 out;
      dof_shaped_blur(img, random_coc(37, 23, 9.f, seed), p, out, 2);
      EXPECT_EQ(out.data, img.data) << mode << " " << to_string(shape);
    }
}

TEST(ShapedModes, ZeroCocIsTheIdentity) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const ImageRGBA8 img = test::random_image(41, 19, seed);
  for (const char* mode : kShapedModes) {
    Params p;
    p.dof_mode = mode;
    p.max_radius = 12.f;
    ImageRGBA8 out;
    dof_shaped_blur(img, ImageF(41, 19, 1), p, out, 2);
    EXPECT_EQ(out.data, img.data) << mode;
  }
}

TEST(ShapedModes, NanCocCountsAsInFocus) {
  const ImageRGBA8 img = test::random_image(13, 11, test::fresh_seed());
  ImageF coc(13, 11, 1);
  for (auto& c : coc.data) c = std::nanf("");
  for (const char* mode : kShapedModes) {
    Params p;
    p.dof_mode = mode;
    ImageRGBA8 out;
    dof_shaped_blur(img, coc, p, out, 1);
    EXPECT_EQ(out.data, img.data) << mode;
  }
}

// A fine black-and-white checker blurred far beyond its period: the sRGB mean is grey 128, the linear
// mean half the light of white, sRGB 188.
TEST(ShapedModes, LinearLightAveragesLightNotCodeValues) {
  ImageRGBA8 img(64, 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      uint8_t* px = img.px(x, y);
      px[0] = px[1] = px[2] = ((x + y) & 1) ? 255 : 0, px[3] = 255;
    }
  ImageF coc(64, 64, 1);
  for (auto& c : coc.data) c = -8.f;
  Params p;
  p.max_radius = 8.f;
  p.aperture_shape = ApertureShape::Square;  // 17 x 17 boxes: 145 white, 144 black, or the reverse
  ImageRGBA8 srgb, lin;
  p.dof_mode = "gather_shape";
  dof_shaped_blur(img, coc, p, srgb, 1);
  p.dof_mode = "gather_linear";
  dof_shaped_blur(img, coc, p, lin, 1);
  EXPECT_NEAR(srgb.px(32, 32)[0], 128, 1);
  EXPECT_NEAR(lin.px(32, 32)[0], 188, 1);
}

namespace {

// The two-plane scene blurred by gather_linear and by layered, max radius 8.
std::pair<ImageRGBA8, ImageRGBA8> gather_and_layered(const test::TwoPlanes& s) {
  Params p;
  p.max_radius = 8.f;
  std::pair<ImageRGBA8, ImageRGBA8> out;
  p.dof_mode = "gather_linear";
  dof_shaped_blur(s.img, s.coc, p, out.first, 1);
  p.dof_mode = "layered";
  dof_shaped_blur(s.img, s.coc, p, out.second, 1);
  return out;
}

}  // namespace

// Focus on the background: a lens spreads the blurred foreground over the sharp background, and sees the
// background through the foreground's blurred rim. The gather keeps a hard silhouette instead.
TEST(ShapedModes, LayeredSpreadsABlurredForegroundOverTheSharpBackground) {
  const auto [gather, layered] = gather_and_layered(test::TwoPlanes(8.f, 0.f));
  // 3 px outside the square's left edge: sharp background in the gather, red spread over it when layered.
  EXPECT_EQ(gather.px(37, 32)[0], 0);
  EXPECT_GT(layered.px(37, 32)[0], 60);
  // Just inside the edge the rim lets the background through.
  EXPECT_GT(layered.px(40, 32)[1], 20);
  EXPECT_LT(layered.px(40, 32)[0], 200);
}

// Focus on the foreground: a lens does not leak the sharp foreground's colour into the blurred background
// around it. The gather does (a red halo).
TEST(ShapedModes, LayeredKeepsASharpForegroundOutOfTheBlurredBackground) {
  const auto [gather, layered] = gather_and_layered(test::TwoPlanes(0.f, -8.f));
  EXPECT_GT(gather.px(36, 32)[0], 80);  // the halo
  EXPECT_LT(layered.px(36, 32)[0], 5);
  EXPECT_EQ(layered.px(55, 32)[0], 230);  // the sharp square itself
}

TEST(ShapedModes, BadParametersAreRefusedNamingTheOption) {
  Params p;
  p.dof_mode = "layered";
  p.max_radius = 600.f;
  EXPECT_THROW(validate(p), Error);
  try {
    validate(p);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--max-radius"), std::string::npos) << e.what();
  }
  p.max_radius = 20.f;
  p.blades = 4;
  try {
    validate(p);
    FAIL() << "4 blades accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--blades"), std::string::npos) << e.what();
  }
  p.blades = 6;
  p.dof_mode = "bokeh_magic";
  EXPECT_THROW(validate(p), Error);
}

// Through the CPU pipeline: a depth map of one value and one with NaNs give defined, repeatable results.
TEST(ShapedModes, DegenerateDepthMapsGiveADefinedResult) {
  for (const char* mode : kShapedModes) {
    SCOPED_TRACE(mode);
    Params p;
    p.dof_mode = mode;
    p.focus = 0.6f;
    test::expect_degenerate_depths_defined(p, [&](const ImageRGBA8& img, const ImageF& coc, const ImageF*,
                                                  ImageRGBA8& out) { dof_shaped_blur(img, coc, p, out, 1); });
  }
}
