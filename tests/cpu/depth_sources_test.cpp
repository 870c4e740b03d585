// The depth sources of `satlab quality --depth` (core/depth_sources.hpp): deterministic, each shaped as
// its spec says (phone's size and 8-bit levels, phone_noisy's shift and 1% noise, brush's constant objects
// and silhouettes moved by at most 6 px, stereo's depth close to the exact depth away from occlusions),
// and gen_scene's right views (written by --truth and by --right-views alike).
#include "core/depth_sources.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app/io/ground_truth.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "tests/stereo_pair.hpp"
#include "tools/scene/lens_truth.hpp"

namespace satlab {
namespace {

// A depth map with smooth and stepped parts: a ramp (a floor), a near disc and a far bar, in [0, 1].
ImageF scene_depth(int w, int h) {
  ImageF d(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float v = 1.f - float(y) / float(std::max(1, h - 1));  // far at the top, near at the bottom
      const float dx = float(x) - 0.3f * float(w), dy = float(y) - 0.5f * float(h);
      if (dx * dx + dy * dy < 0.04f * float(w * w)) v = 0.1f;
      if (x > 2 * w / 3 && x < 2 * w / 3 + 3) v = 0.8f;  // a thin far post
      d.at(x, y) = v;
    }
  return d;
}

bool same(const DepthSource& a, const DepthSource& b) {
  auto eq = [](const ImageF& p, const ImageF& q) {
    if (p.width != q.width || p.height != q.height || p.data.size() != q.data.size()) return false;
    for (size_t i = 0; i < p.data.size(); ++i)
      if (!(p.data[i] == q.data[i] || (std::isnan(p.data[i]) && std::isnan(q.data[i])))) return false;
    return true;
  };
  return eq(a.depth, b.depth) && eq(a.confidence, b.confidence);
}

TEST(DepthSources, EverySourceIsTheSameOnTwoCallsAndTheSeedChangesTheRandomOnes) {
  const ImageF exact = scene_depth(97, 61);
  const test::StereoPair pair = test::make_stereo_pair(97, 61, 3, 9, 7);
  DepthSourceInput in;
  in.exact = &exact;
  in.near_depth = 2.f, in.far_depth = 20.f;
  in.left = &pair.left, in.right = &pair.right;
  in.disparity_scale = 18.0;
  in.clicks = {{20.f, 30.f, false}};
  for (const std::string& name : depth_source_names()) {
    SCOPED_TRACE(name);
    const DepthSource a = make_depth_source(name, in), b = make_depth_source(name, in, 1);
    EXPECT_TRUE(same(a, b));
    ASSERT_FALSE(a.depth.empty());
    if (!a.confidence.empty()) {
      EXPECT_EQ(a.confidence.width, a.depth.width);
      EXPECT_EQ(a.confidence.height, a.depth.height);
    }
  }
  DepthSourceInput other = in;
  other.seed = in.seed + 1;
  EXPECT_FALSE(same(make_depth_source("phone_noisy", in), make_depth_source("phone_noisy", other)));
  EXPECT_FALSE(same(make_depth_source("brush", in), make_depth_source("brush", other)));
  EXPECT_TRUE(same(make_depth_source("exact", in), DepthSource{exact, ImageF()}));
}

TEST(DepthSources, PhoneIsAQuarterSizeRoundedUpAreaAveragedAnd8Bit) {
  for (auto [w, h] : {std::pair{384, 216}, {97, 61}, {1, 1}, {1, 13}, {5, 3}, {8, 8}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const ImageF exact = scene_depth(w, h);
    const DepthSource p = phone_depth(exact);
    EXPECT_EQ(p.depth.width, (w + 3) / 4);
    EXPECT_EQ(p.depth.height, (h + 3) / 4);
    EXPECT_TRUE(p.confidence.empty());
    for (float v : p.depth.data) {
      EXPECT_EQ(v, float(std::lround(v * 255.f)) / 255.f) << v;
      EXPECT_GE(v, 0.f);
      EXPECT_LE(v, 1.f);
    }
  }
  // On a size divisible by 4, each sample is its 4 x 4 block's mean, to the 8-bit step.
  ImageF ramp(16, 8);
  for (size_t i = 0; i < ramp.data.size(); ++i) ramp.data[i] = float(i % 16) / 15.f * float(i / 16 + 1) / 8.f;
  const DepthSource p = phone_depth(ramp);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 4; ++i) {
      double sum = 0;
      for (int y = 4 * j; y < 4 * j + 4; ++y)
        for (int x = 4 * i; x < 4 * i + 4; ++x) sum += ramp.at(x, y);
      EXPECT_NEAR(p.depth.at(i, j), sum / 16, 0.5 / 255 + 1e-6) << i << "," << j;
    }
  // A fractional footprint: 5 px onto 2 samples weighs the middle pixel half to each.
  ImageF five(5, 1);
  five.data = {0.f, 0.f, 1.f, 0.f, 0.f};
  const ImageF two = area_downsample(five, 2, 1);
  EXPECT_NEAR(two.data[0], 0.5 / 2.5, 1e-6);
  EXPECT_NEAR(two.data[1], 0.5 / 2.5, 1e-6);
}

TEST(DepthSources, PhoneNoisyIsThePhoneMapShiftedTwoPixelsWithOnePercentNoise) {
  const int w = 400, h = 240;
  ImageF flat(w, h);
  for (float& v : flat.data) v = 128.f / 255.f;  // on an 8-bit level: the noise's mean stays 0
  flat.data[0] = 0.f, flat.data[1] = 1.f;        // range 1: sigma 0.01
  const DepthSource p = phone_depth(flat), n = phone_noisy_depth(flat);
  ASSERT_EQ(n.depth.width, p.depth.width);
  ASSERT_EQ(n.depth.height, p.depth.height);
  double sum = 0, sum2 = 0;
  size_t count = 0;
  for (int y = 1; y < n.depth.height; ++y)  // away from the top-left pixels
    for (int x = 1; x < n.depth.width; ++x) {
      const double e = double(n.depth.at(x, y)) - p.depth.at(x, y);
      EXPECT_EQ(n.depth.at(x, y), float(std::lround(n.depth.at(x, y) * 255.f)) / 255.f);
      sum += e, sum2 += e * e, ++count;
    }
  const double mean = sum / double(count), sigma = std::sqrt(sum2 / double(count) - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.001);
  EXPECT_NEAR(sigma, 0.01, 0.0015);  // 8-bit steps (0.0039) add about 0.0011 in quadrature
  // The misregistration: a step edge moves 2 px right (0.5 of a low-resolution sample).
  ImageF step(64, 8);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 64; ++x) step.at(x, y) = x < 32 ? 0.f : 1.f;
  const ImageF shifted = shift_clamped(step, kPhoneShift, kPhoneShift);
  EXPECT_EQ(shifted.at(33, 5), 0.f);
  EXPECT_EQ(shifted.at(34, 5), 1.f);
  EXPECT_EQ(shifted.at(0, 0), 0.f);
  EXPECT_NEAR(area_downsample(shifted, 16, 2).at(8, 1), 0.5f, 1e-6);  // the sample over [32, 36)
  const DepthSource sn = phone_noisy_depth(step);
  EXPECT_NEAR(sn.depth.at(8, 1), 0.5f, 0.05f);
  EXPECT_NEAR(phone_depth(step).depth.at(8, 1), 1.f, 1e-6);
}

TEST(DepthSources, BrushPaintsEachObjectAtOneDepthAndMovesSilhouettesAtMostSixPixels) {
  for (auto [w, h] : {std::pair{160, 90}, {37, 23}, {1, 1}, {1, 17}, {13, 1}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const ImageF exact = scene_depth(w, h);
    const BrushObjects o = brush_objects(exact, 2.f, 30.f);
    const DepthSource b = brush_depth(exact, 2.f, 30.f);
    ASSERT_EQ(b.depth.width, w);
    ASSERT_EQ(b.confidence.width, w);
    const std::set<float> medians(o.depth.begin(), o.depth.end());
    const int r = kBrushDisplacement;
    size_t moved = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float v = b.depth.at(x, y);
        ASSERT_TRUE(medians.count(v)) << x << "," << y;
        // Some pixel within 6 px belongs to an object of that depth.
        bool near = false;
        for (int j = std::max(0, y - r); j <= std::min(h - 1, y + r) && !near; ++j)
          for (int i = std::max(0, x - r); i <= std::min(w - 1, x + r) && !near; ++i)
            near = (i - x) * (i - x) + (j - y) * (j - y) <= r * r &&
                   o.depth[size_t(o.label[size_t(j) * size_t(w) + size_t(i)])] == v;
        ASSERT_TRUE(near) << x << "," << y;
        moved += v != o.depth[size_t(o.label[size_t(y) * size_t(w) + size_t(x)])];
        const float c = b.confidence.at(x, y);
        EXPECT_GT(c, 0.f);
        EXPECT_LE(c, 1.f);
      }
    if (w >= 37 && h >= 23) {
      EXPECT_GT(moved, 0u);  // the silhouettes did move
    }
  }
  // An object is one level's connected region at the median of its exact depths.
  ImageF two(20, 10);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 20; ++x) two.at(x, y) = x < 10 ? 0.001f * float(y % 3) : 0.9f;
  const BrushObjects o = brush_objects(two, 2.f, 30.f);
  ASSERT_EQ(o.depth.size(), 2u);
  EXPECT_EQ(o.depth[0], 0.001f);  // 40 at 0, 30 at 0.001, 30 at 0.002: the 50th
  EXPECT_EQ(o.depth[1], 0.9f);
  // The displacement field's offsets stay within the disc and vary smoothly.
  const std::vector<int8_t> off = brush_displacement(300, 200);
  int largest = 0;
  for (size_t i = 0; i < off.size(); i += 2) {
    const int d2 = off[i] * off[i] + off[i + 1] * off[i + 1];
    EXPECT_LE(d2, kBrushDisplacement * kBrushDisplacement);
    largest = std::max(largest, d2);
    if ((i / 2) % 300 != 299) {
      EXPECT_LE(std::abs(off[i] - off[i + 2]), 2) << i;
    }
  }
  EXPECT_GE(largest, 16);
  EXPECT_THROW(brush_depth(two, 0.f, 30.f), Error);
}

TEST(DepthSources, StereoDepthIsCloseToTheExactDepthAwayFromOcclusions) {
  const int w = 163, h = 97, bg = 3, fg = 11;
  const test::StereoPair pair = test::make_stereo_pair(w, h, bg, fg, 11);
  const double scale = 33.0;  // z = 33 / D: the rectangle at 3, the plane at 11
  const float near_depth = 3.f, far_depth = 11.f;
  const DepthSource s = stereo_depth(pair.left, pair.right, scale, near_depth, far_depth);
  ASSERT_EQ(s.depth.width, w);
  ASSERT_EQ(s.confidence.height, h);
  size_t good = 0, checked = 0, confident = 0;
  for (int y = 0; y < h; ++y)
    for (int x = fg + 4; x < w; ++x) {
      const size_t i = size_t(y) * size_t(w) + size_t(x);
      if (!pair.visible[i]) continue;
      bool edge = false;  // within the window radius of a disparity edge
      for (int j = std::max(0, y - 5); j <= std::min(h - 1, y + 5); ++j)
        for (int k = std::max(0, x - 5); k <= std::min(w - 1, x + 5); ++k)
          edge |= pair.truth[size_t(j) * size_t(w) + size_t(k)] != pair.truth[i];
      if (edge) continue;
      // Back to disparity (depth at disparity 3 moves 0.46 of the range per pixel of disparity).
      const double D = scale / (near_depth + double(s.depth.data[i]) * (far_depth - near_depth));
      ++checked;
      good += std::fabs(D - double(pair.truth[i])) < 0.25;
      confident += s.confidence.data[i] == 1.f;
    }
  ASSERT_GT(checked, size_t(w * h / 2));
  EXPECT_GT(double(good), 0.97 * double(checked));
  EXPECT_GT(double(confident), 0.9 * double(checked));
  // The occluded band beside the rectangle is where the check fails: some confidence 0 there.
  size_t rejected = 0;
  for (float c : s.confidence.data) rejected += c == 0.f;
  EXPECT_GT(rejected, 0u);
  for (float d : s.depth.data)
    if (!std::isnan(d)) {
      EXPECT_TRUE(d >= 0.f && d <= 1.f) << d;
    }
  EXPECT_THROW(stereo_depth(pair.left, ImageRGBA8(w - 1, h), scale, near_depth, far_depth), Error);
  EXPECT_THROW(stereo_depth(pair.left, pair.right, 0.0, near_depth, far_depth), Error);
}

TEST(DepthSources, UnknownSourcesAndMissingInputsAreOneLineErrors) {
  const ImageF exact = scene_depth(20, 10);
  DepthSourceInput in;
  in.exact = &exact;
  try {
    make_depth_source("lidar", in);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("exact, phone, phone_noisy, stereo, brush, selection"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(make_depth_source("stereo", in), Error);  // no right view
  EXPECT_THROW(make_depth_source("brush", in), Error);   // no near and far
  EXPECT_THROW(make_depth_source("selection", in), Error);  // no image, no clicks
  EXPECT_EQ(resolve_refiner("auto", depth_source_origin("selection").origin, false), "none");
  EXPECT_THROW(phone_depth(ImageF()), Error);
  EXPECT_EQ(depth_source_origin("phone").origin, DepthOrigin::Embedded);
  EXPECT_TRUE(depth_source_origin("phone_noisy").lower_resolution);
  EXPECT_EQ(depth_source_origin("stereo").origin, DepthOrigin::Stereo);
  EXPECT_EQ(depth_source_origin("brush").origin, DepthOrigin::Brush);
  EXPECT_EQ(resolve_refiner("auto", DepthOrigin::File, depth_source_origin("exact").lower_resolution),
            "none");
}

// Two flat-colour discs at their own depths on a far plane: one click in each gives each disc its exact
// depth up to its edge and the plane its own, in either order of the clicks.
TEST(DepthSources, SelectionGivesEachClickedObjectItsDepthWithAHardEdge) {
  const int w = 121, h = 83;
  ImageRGBA8 img(w, h);
  ImageF exact(w, h);
  auto in_disc = [](int x, int y, float cx, float cy, float r) {
    const float dx = float(x) + 0.5f - cx, dy = float(y) + 0.5f - cy;
    return dx * dx + dy * dy < r * r;
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool a = in_disc(x, y, 35.f, 40.f, 20.f), b = in_disc(x, y, 88.f, 45.f, 17.f);
      const uint8_t c[3] = {uint8_t(a ? 220 : b ? 30 : 90), uint8_t(a ? 60 : b ? 200 : 120), uint8_t(b ? 60 : 170)};
      for (int k = 0; k < 3; ++k) img.px(x, y)[k] = c[k];
      img.px(x, y)[3] = 255;
      exact.at(x, y) = a ? 0.1f : b ? 0.4f : 0.9f;
    }
  for (const bool swap : {false, true}) {
    std::vector<SelectClick> clicks = {{35.f, 40.f, false}, {88.f, 45.f, false}};
    if (swap) std::swap(clicks[0], clicks[1]);
    const DepthSource d = selection_depth(img, exact, clicks);
    ASSERT_EQ(d.depth.width, w);
    EXPECT_TRUE(d.confidence.empty());
    size_t wrong = 0;
    for (size_t i = 0; i < exact.pixels(); ++i) {
      const float v = d.depth.data[i];
      ASSERT_TRUE(v == 0.1f || v == 0.4f || v == 0.9f) << i << " " << v;  // no mixed depths
      wrong += v != exact.data[i];
    }
    EXPECT_LE(wrong, exact.pixels() / 200) << swap;  // at most an edge pixel here and there
  }
}

std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// gen_scene --truth writes a right view per scene and its fields; --right-views adds the same views and
// fields to a manifest without them, and changes nothing else.
TEST(DepthSources, RightViewsOfTheGroundTruthAreTheSameWrittenEitherWay) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / ("satlab_right_" + std::to_string(::getpid()));
  fs::create_directories(root);
  scene::TruthOptions o;
  o.width = 48, o.height = 27, o.lens = 1, o.quiet = true, o.scene = "occlusion";
  o.out_dir = root.string();
  scene::write_ground_truth(o);
  const std::string manifest = (root / "cases.json").string();
  const std::string full = file_text(manifest), right = file_text((root / "occlusion_right.png").string());
  nlohmann::json j = nlohmann::json::parse(full);
  for (auto& c : j["cases"]) {
    EXPECT_EQ(c["right"], "occlusion_right.png");
    EXPECT_NEAR(c["disparity_scale"].get<double>() / c["near_depth"].get<double>(),
                48.0 * scene::kRightDisparityFraction, 1e-4);
    c.erase("right"), c.erase("baseline"), c.erase("disparity_scale");
  }
  io::save_text(manifest, j.dump(1) + "\n");
  fs::remove(root / "occlusion_right.png");
  scene::write_right_views(o);
  EXPECT_EQ(file_text(manifest), full);
  EXPECT_EQ(file_text((root / "occlusion_right.png").string()), right);
  // The manifest reader resolves the right view and its scale.
  const std::vector<io::TruthCase> cases = io::load_truth_cases(manifest);
  ASSERT_FALSE(cases.empty());
  EXPECT_EQ(cases[0].right, (root / "occlusion_right.png").string());
  EXPECT_GT(cases[0].disparity_scale, 0.0);
  // The right view differs from the left (the camera moved).
  EXPECT_NE(file_text((root / "occlusion.png").string()), right);
  fs::remove_all(root);
}

}  // namespace
}  // namespace satlab
