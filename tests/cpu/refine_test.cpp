// The depth refiners' CPU references (core/refine.hpp): range, flatness, edges, confidence, the auto rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/error.hpp"
#include "core/refine.hpp"
#include "core/refine_grid.hpp"
#include "test_util.hpp"

namespace satlab {
namespace {

ImageF random_depth(int w, int h, uint32_t seed, float lo = 0.f, float hi = 1.f) {
  ImageF d(w, h, 1);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (float& v : d.data) v = u(rng);
  return d;
}

// Area-average by k (the last cells take what is left), as a phone's map is made.
ImageF downsample(const ImageF& d, int k) {
  const int w = (d.width + k - 1) / k, h = (d.height + k - 1) / k;
  ImageF o(w, h, 1);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      double s = 0;
      int n = 0;
      for (int y = j * k; y < std::min(d.height, (j + 1) * k); ++y)
        for (int x = i * k; x < std::min(d.width, (i + 1) * k); ++x) s += d.at(x, y), ++n;
      o.at(i, j) = float(s / n);
    }
  return o;
}

// A two-plane scene: a disc of depth `near` and its own colour on a background of depth `far`, each
// region textured (the texture must not reach the depth).
struct Scene {
  ImageRGBA8 image;
  ImageF depth;
};
Scene disc_scene(int w, int h, uint32_t seed, float near = 0.2f, float far = 0.8f) {
  Scene s{ImageRGBA8(w, h), ImageF(w, h, 1)};
  std::mt19937 rng(seed);
  const float cx = w * 0.5f, cy = h * 0.5f, r = std::min(w, h) * 0.3f;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool in = (x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r;
      const bool check = ((x / 3) + (y / 3)) % 2;  // a checked texture on both
      uint8_t* p = s.image.px(x, y);
      p[0] = uint8_t(in ? 200 + (check ? 40 : 0) : 30 + (check ? 40 : 0));
      p[1] = uint8_t(in ? 60 : 120 + int(rng() % 8));
      p[2] = uint8_t(in ? 40 : 180);
      p[3] = 255;
      s.depth.at(x, y) = in ? near : far;
    }
  return s;
}

double mean_abs_error(const ImageF& a, const ImageF& b) {
  double e = 0;
  for (size_t i = 0; i < a.data.size(); ++i) e += std::fabs(double(a.data[i]) - double(b.data[i]));
  return e / double(a.data.size());
}

// The CPU loop takes weight()'s factors from tables: on random windows (clipped ones, samples of base 0,
// colours near and far, pixels at every 1/16-sample offset and past the grid's last centre) it gives
// refine_pixel's value bit for bit, for every reduction, the no-colour fallback and NaN (no weight) included;
// and the weighted median over the samples of non-zero weight equals the one over all of them. The 8-lane
// weights (refine_pixel_lanes, AVX2) too: pixels past the spatial table's reach take its scalar loop.
TEST(Refine, TableWeightsEqualTheReferencePixel) {
  using namespace refine;
  std::mt19937 rng(4242);
  std::uniform_int_distribution<int> byte(0, 255), off(-12, 27), coin(0, 3);
  std::uniform_real_distribution<float> depth(0.f, 1.f), slope(-0.05f, 0.05f);
  int fallback = 0, nan = 0, compacted = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    Window win;
    win.n = 0;
    const int clip = coin(rng);  // 0: whole window; else some rows or columns left out
    for (int dj = -kWindow; dj <= kWindow; ++dj)
      for (int di = -kWindow; di <= kWindow; ++di) {
        if (clip == 1 && di < -1) continue;
        if (clip == 2 && dj > 1) continue;
        Sample& sm = win.s[win.n];
        sm.d = depth(rng), sm.gx = slope(rng), sm.gy = slope(rng);
        for (int t = 0; t < 2; ++t)
          for (int c = 0; c < 3; ++c) sm.rgb[t][c] = uint8_t(byte(rng));
        sm.base = coin(rng) == 0 ? 0u : uint32_t(byte(rng) + 1);
        if (trial % 7 == 0) sm.base = 0;  // every base 0: no weight at all
        win.i[win.n] = int8_t(di), win.j[win.n] = int8_t(dj);
        ++win.n;
      }
    const int ci = 5, cj = 7;
    const int u = ci * kSubSample + off(rng), v = cj * kSubSample + off(rng);
    uint8_t rgb[3] = {uint8_t(byte(rng)), uint8_t(byte(rng)), uint8_t(byte(rng))};
    if (trial % 5 == 0) rgb[0] = rgb[1] = rgb[2] = 255, win.s[0].rgb[0][0] = 0;
    if (trial % 11 == 0) {  // black samples, a white pixel, the near ones of no base: only the fallback weighs
      rgb[0] = rgb[1] = rgb[2] = 255;
      for (int k = 0; k < win.n; ++k) {
        for (int t = 0; t < 2; ++t) win.s[k].rgb[t][0] = win.s[k].rgb[t][1] = win.s[k].rgb[t][2] = 0;
        win.s[k].base = std::abs(win.i[k]) <= 1 && std::abs(win.j[k]) <= 1 ? 0u : 1u;
      }
    }
    WindowLanes lanes;
    fill_lanes(win, ci, cj, lanes);
    for (Reduce r : {Reduce::Median, Reduce::Mean, Reduce::Max}) {
      const float want = refine_pixel(win, ci, cj, u, v, rgb, r, 0.f, 1.f, 0.03f);
      const float got = refine_pixel_tables(win, ci, cj, u, v, rgb, r, 0.f, 1.f, 0.03f);
      const float lane = refine_pixel_lanes(win, lanes, ci, cj, u, v, rgb, r, 0.f, 1.f, 0.03f);
      if (std::isnan(want)) {
        ++nan;
        EXPECT_TRUE(std::isnan(got)) << "trial " << trial;
        EXPECT_TRUE(std::isnan(lane)) << "trial " << trial;
      } else {
        EXPECT_EQ(std::memcmp(&want, &got, 4), 0) << "trial " << trial << ": " << got << " vs " << want;
        EXPECT_EQ(std::memcmp(&want, &lane, 4), 0) << "trial " << trial << " (8 lanes): " << lane << " vs " << want;
      }
    }
    unsigned long long with_colour = 0, without = 0;
    for (int k = 0; k < win.n; ++k) {
      with_colour += weight(win.s[k], ci + win.i[k], cj + win.j[k], u, v, rgb, true);
      without += weight(win.s[k], ci + win.i[k], cj + win.j[k], u, v, rgb, false);
    }
    fallback += with_colour == 0 && without > 0;
    // reduce_window's median runs over the samples of non-zero weight only: the same value as over all.
    if (with_colour > 0) {
      float p[kWindowSamples], pn[kWindowSamples];
      uint32_t w[kWindowSamples], wn[kWindowSamples];
      int m = 0;
      for (int k = 0; k < win.n; ++k) {
        p[k] = predict(win.s[k], ci + win.i[k], cj + win.j[k], u, v, 0.f, 1.f);
        w[k] = weight(win.s[k], ci + win.i[k], cj + win.j[k], u, v, rgb, true);
        if (w[k]) pn[m] = p[k], wn[m] = w[k], ++m;
      }
      const float all = weighted_median(p, w, win.n, with_colour), some = weighted_median(pn, wn, m, with_colour);
      EXPECT_EQ(std::memcmp(&all, &some, 4), 0) << "trial " << trial;
      compacted += m < win.n;
    }
  }
  EXPECT_GT(compacted, 0);
  EXPECT_GT(nan, 0);  // the cases were reached: no weight at all, and weights only without colour
  EXPECT_GT(fallback, 0);
}

// weighted_median against its definition, by brute force: the smallest value whose samples at or below it
// hold at least half the total; ties, zero weights and single samples included.
TEST(Refine, WeightedMedianIsTheSmallestValueHoldingHalfTheWeight) {
  using namespace refine;
  std::mt19937 rng(test::fresh_seed());
  std::uniform_int_distribution<int> len(1, kWindowSamples), level(0, 9), coin(0, 3);
  std::uniform_int_distribution<uint32_t> weight(1, 1u << 24);
  for (int trial = 0; trial < 20000; ++trial) {
    const int n = len(rng);
    float p[kWindowSamples];
    uint32_t w[kWindowSamples];
    unsigned long long total = 0;
    for (int k = 0; k < n; ++k) {
      p[k] = trial % 2 ? float(level(rng)) * 0.1f : std::uniform_real_distribution<float>(-1.f, 1.f)(rng);
      w[k] = coin(rng) == 0 ? 0u : weight(rng);
      total += w[k];
    }
    if (total == 0) w[0] = 1, total = 1;
    float want = INFINITY;
    for (int k = 0; k < n; ++k) {
      unsigned long long at_or_below = 0;
      for (int q = 0; q < n; ++q) at_or_below += p[q] <= p[k] ? w[q] : 0u;
      if (2 * at_or_below >= total) want = std::min(want, p[k]);
    }
    const float got = weighted_median(p, w, n, total);
    ASSERT_EQ(std::memcmp(&want, &got, 4), 0) << "trial " << trial << ": " << got << " vs " << want;
  }
}

// The whole pass with the 8-lane weights equals refine_pixel at every pixel, on odd sizes and every scale
// (the windows clipped at the borders, regridded depth included). Without AVX2 the lanes are not run.
TEST(Refine, LaneWeightsEqualTheReferencePixelOverWholeImages) {
  using namespace refine;
  if (!lanes_supported()) GTEST_SKIP() << "this CPU has no AVX2: refine_pixel_lanes runs refine_pixel_tables";
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {31, 37}, {61, 29}, {97, 53}};
  for (const auto& sz : sizes)
    for (int k : {1, 2, 3, 4, 8}) {
      const int W = sz[0], H = sz[1];
      const ImageRGBA8 img = test::random_image(W, H, seed + uint32_t(k));
      const ImageF d = random_depth(std::max(1, W / k), std::max(1, H / k), seed ^ uint32_t(W * 131 + k), 0.25f, 0.75f);
      const Grid g = make_grid({&img, &d, nullptr});
      const std::vector<Sample> samples = make_samples(g, img);
      for (Reduce r : {Reduce::Median, Reduce::Mean, Reduce::Max}) {
        const ImageF got = refine_samples(g, samples, img, r, 2);
        Window win;
        for (int y = 0; y < H; ++y)
          for (int x = 0; x < W; ++x) {
            const int u = grid_pos(x, g.gw, W), v = grid_pos(y, g.gh, H);
            const int ci = nearest_sample(u, g.gw), cj = nearest_sample(v, g.gh);
            gather_window(samples.data(), g.gw, g.gh, ci, cj, win);
            const float want = refine_pixel(win, ci, cj, u, v, img.px(x, y), r, g.lo, g.hi, g.polish_tol);
            const float have = got.at(x, y);
            ASSERT_TRUE(std::memcmp(&want, &have, 4) == 0 || (std::isnan(want) && std::isnan(have)))
                << W << "x" << H << " /" << k << " reduce " << int(r) << " at (" << x << ", " << y << "): " << have
                << " vs " << want;
          }
      }
    }
}

TEST(Refine, TableNamesEveryRefinerOnce) {
  EXPECT_EQ(refiner_list(), "none, guided, wmedian, jbu, snap");
  for (const Refiner& r : refiners()) EXPECT_EQ(find_refiner(r.name), &r);
  EXPECT_EQ(find_refiner("auto"), nullptr);
}

TEST(Refine, AutoRefinesEverythingButExactFullSizeSyntheticAndPaintedDepth) {
  EXPECT_EQ(resolve_refiner("auto", DepthOrigin::File, false), "none");
  EXPECT_EQ(resolve_refiner("auto", DepthOrigin::Synthetic, false), "none");
  EXPECT_EQ(resolve_refiner("auto", DepthOrigin::File, true), kDefaultRefiner);
  EXPECT_EQ(resolve_refiner("auto", DepthOrigin::Embedded, true), kDefaultRefiner);
  EXPECT_EQ(resolve_refiner("auto", DepthOrigin::Stereo, false), kDefaultRefiner);
  EXPECT_EQ(resolve_refiner("auto", DepthOrigin::Brush, false), "none");  // lowered by every refiner on tuning
  EXPECT_EQ(resolve_refiner("jbu", DepthOrigin::File, false), "jbu");
  try {
    resolve_refiner("bilateral", DepthOrigin::File, false);
    FAIL() << "an unknown refiner was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("valid: auto, none, guided"), std::string::npos) << e.what();
  }
}

TEST(Refine, OutputIsTheImageSizeAndWithinTheInputRangeAtOddSizesAndEveryScale) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {2, 3}, {31, 37}, {61, 29}};
  for (const auto& sz : sizes)
    for (int k = 1; k <= 8; ++k) {
      const int W = sz[0], H = sz[1];
      const ImageRGBA8 img = test::random_image(W, H, seed + uint32_t(k));
      const ImageF d = random_depth(std::max(1, W / k), std::max(1, H / k), seed ^ uint32_t(W * 131 + k), 0.25f, 0.75f);
      float lo = 2, hi = -1;
      for (float v : d.data) lo = std::min(lo, v), hi = std::max(hi, v);
      // Confidence of at least 1/64: one below 1/256 weighs nothing, and where no sample in reach weighs
      // anything the refiners give no depth (NaN; ZeroConfidenceSamplesAreIgnored checks it). A 1 x 1 map
      // of confidence 0.003 made this test fail on seed 1420503405.
      const ImageF conf = random_depth(d.width, d.height, seed + 7, 1.f / 64, 1.f);
      for (const Refiner& r : refiners())
        for (const bool with_conf : {false, true}) {
          SCOPED_TRACE(std::string(r.name) + " " + std::to_string(W) + "x" + std::to_string(H) + " /" +
                       std::to_string(k) + (with_conf ? " with confidence" : ""));
          const ImageF out = r.cpu({&img, &d, with_conf ? &conf : nullptr}, 0);
          ASSERT_EQ(out.width, W);
          ASSERT_EQ(out.height, H);
          ASSERT_EQ(out.channels, 1);
          for (float v : out.data) {
            ASSERT_TRUE(std::isfinite(v));
            ASSERT_GE(v, lo - 1e-6f);  // bilinear's float blend may round a hair outside
            ASSERT_LE(v, hi + 1e-6f);
          }
        }
    }
}

TEST(Refine, FlatDepthStaysFlatOnATexturedImage) {
  const uint32_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const ImageRGBA8 img = test::random_image(67, 41, seed);
  for (const int k : {1, 2, 4, 8}) {
    ImageF d(std::max(1, 67 / k), std::max(1, 41 / k), 1);
    for (float& v : d.data) v = 0.37f;
    for (const Refiner& r : refiners()) {
      SCOPED_TRACE(std::string(r.name) + " /" + std::to_string(k));
      const ImageF out = r.cpu({&img, &d, nullptr}, 0);
      for (float v : out.data) ASSERT_EQ(v, 0.37f);
    }
  }
}

TEST(Refine, AllWhiteImageAndAllMissingDepthAreHandled) {
  ImageRGBA8 white(33, 19);
  for (auto& v : white.data) v = 255;
  const ImageF d = random_depth(9, 5, 3);
  for (const Refiner& r : refiners()) EXPECT_EQ(r.cpu({&white, &d, nullptr}, 0).width, 33) << r.name;
  ImageF none(9, 5, 1);
  for (float& v : none.data) v = std::numeric_limits<float>::quiet_NaN();
  for (const char* name : {"wmedian", "jbu", "snap"}) {
    const ImageF out = refine_cpu(name, {&white, &none, nullptr});
    for (float v : out.data) ASSERT_TRUE(std::isnan(v)) << name << ": depth made from no depth";
  }
  EXPECT_THROW(refine_cpu("guided", {&white, &none, nullptr}), Error);
}

TEST(Refine, BadInputIsRefusedWithTheSizes) {
  const ImageRGBA8 img = test::random_image(16, 16, 1);
  const ImageF d = random_depth(4, 4, 2), conf = random_depth(5, 4, 3);
  try {
    refine_cpu("wmedian", {&img, &d, &conf});
    FAIL() << "a confidence map of the wrong size was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("5x4"), std::string::npos) << e.what();
  }
  const ImageF rgb(4, 4, 3);
  EXPECT_THROW(refine_cpu("jbu", {&img, &rgb, nullptr}), Error);
  EXPECT_THROW(refine_cpu("auto", {&img, &d, nullptr}), Error);  // auto is resolved first, never run
}

// The point of the family: a quarter-resolution map of a textured two-plane scene comes back with its
// edge on the image's edge, far closer to the exact depth than bilinear resampling; the guided filter
// (texture copied into the depth) is not.
TEST(Refine, SampleRefinersRecoverTheEdgeFromAQuarterResolutionMap) {
  const Scene s = disc_scene(160, 120, test::fresh_seed());
  const ImageF low = downsample(s.depth, 4);
  const double none = mean_abs_error(refine_cpu("none", {&s.image, &low, nullptr}), s.depth);
  for (const char* name : {"wmedian", "snap"}) {
    const double e = mean_abs_error(refine_cpu(name, {&s.image, &low, nullptr}), s.depth);
    EXPECT_LT(e, none * 0.25) << name << " " << e << " against bilinear's " << none;
  }
  const double jbu = mean_abs_error(refine_cpu("jbu", {&s.image, &low, nullptr}), s.depth);
  EXPECT_LT(jbu, none) << jbu << " against bilinear's " << none;
}

TEST(Refine, ZeroConfidenceSamplesAreIgnored) {
  const Scene s = disc_scene(96, 96, 5);
  ImageF low = downsample(s.depth, 4), conf(low.width, low.height, 1);
  for (float& v : conf.data) v = 1.f;
  // Corrupt a block of the background's samples and mark them unconfident.
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 2; ++i) low.at(i, j) = 0.5f, conf.at(i, j) = 0.f;
  const ImageF out = refine_cpu("wmedian", {&s.image, &low, &conf});
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) ASSERT_EQ(out.at(x, y), 0.8f) << x << "," << y;
  // Where no confident sample is in reach, there is no depth (callers fill such holes as for loaded maps).
  for (float& v : conf.data) v = 0.f;
  for (const char* name : {"wmedian", "jbu", "snap"})
    for (float v : refine_cpu(name, {&s.image, &low, &conf}).data) ASSERT_TRUE(std::isnan(v)) << name;
  const ImageF blind = refine_cpu("wmedian", {&s.image, &low, nullptr});
  EXPECT_NE(blind.at(2, 2), 0.8f) << "the corruption did not reach the unconfident run: the test shows nothing";
}

TEST(Refine, FullSizeDepthWithAMisplacedEdgeIsPulledToTheImagesEdge) {
  const Scene s = disc_scene(128, 128, 9);
  ImageF shifted(128, 128, 1);  // the disc's depth 3 px to the right, as a brush stroke would miss it
  for (int y = 0; y < 128; ++y)
    for (int x = 0; x < 128; ++x) shifted.at(x, y) = s.depth.at(std::max(0, x - 3), y);
  const double before = mean_abs_error(shifted, s.depth);
  const double after = mean_abs_error(refine_cpu("wmedian", {&s.image, &shifted, nullptr}), s.depth);
  EXPECT_LT(after, before * 0.5) << after << " against " << before;
}

TEST(Refine, GridPositionsAndFootprintsCoverTheImage) {
  for (const int n : {1, 2, 7, 64, 97})
    for (const int g : {1, 2, 3, 16, 25}) {
      if (g > n) continue;
      EXPECT_EQ(refine::footprint(0, g, n), 0);
      EXPECT_EQ(refine::footprint(g, g, n), n);
      for (int i = 0; i < g; ++i) EXPECT_LT(refine::footprint(i, g, n), refine::footprint(i + 1, g, n));
      for (int x = 0; x < n; ++x) {
        const int c = refine::nearest_sample(refine::grid_pos(x, g, n), g);
        ASSERT_GE(c, 0);
        ASSERT_LT(c, g);
        // The nearest sample's footprint holds the pixel, or is next to the one that does.
        EXPECT_LE(std::abs(refine::footprint(c, g, n) - x), (n + g - 1) / g + 1) << n << " " << g << " " << x;
      }
    }
}

}  // namespace
}  // namespace satlab
