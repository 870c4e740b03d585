// The thin-lens ground truth (tools/scene) uses the pipeline's CoC model: a small light out of focus
// spreads over a disc whose radius is what coc_from_depth gives for the case's parameters
// (aperture K = focal_px * lens radius, depth normalised between the frame's nearest and farthest).
#include "tools/scene/lens_truth.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "app/io/ground_truth.hpp"
#include "app/io/image_io.hpp"
#include "core/aperture_image.hpp"
#include "core/error.hpp"
#include "core/params.hpp"
#include "core/reference.hpp"
#include "tools/scene/render.hpp"

namespace satlab {
namespace {

namespace sc = scene;

// A light of radius 0.3 at depth 10 on the axis, before a far wall at depth 40.
sc::Scene one_light() {
  sc::Scene s;
  s.name = "one_light";
  s.floor = false;
  s.wall_z = 40;
  s.eye = {0, 0, 0};
  s.forward = {0, 0, 1};
  s.lights.push_back({{0, 0, 10}, 0.3, {1, 1, 1}, 50, 0});
  return s;
}

// Pixels the light reaches: brighter than without it.
int lit_pixels(const sc::Scene& with, const sc::Camera& cam, double radius, double focus_z) {
  sc::Scene without = with;
  without.lights.clear();
  const ImageRGBA8 a = sc::render_thin_lens(with, cam, radius, focus_z, 16);
  const ImageRGBA8 b = sc::render_thin_lens(without, cam, radius, focus_z, 16);
  int n = 0;
  for (size_t i = 0; i < a.pixels(); ++i) n += a.data[i * 4 + 1] > b.data[i * 4 + 1] + 2;
  return n;
}

TEST(GroundTruth, ThinLensBlursALightOverThePipelinesCocDisc) {
  const sc::Scene s = one_light();
  const sc::Camera cam = sc::Camera::of(s, 64, 64);
  const double R = 0.5, z_f = 2.5;
  // The pipeline's CoC of depth 10 with the case's parameters (depths 1..40 normalised).
  Params p;
  p.near_depth = 1.f;
  p.far_depth = 40.f;
  p.focus = float((z_f - 1.0) / 39.0);
  p.aperture = float(cam.focal_px() * R);
  p.max_radius = 2047.f;
  const float c = std::fabs(coc_from_depth(float((10.0 - 1.0) / 39.0), p));
  ASSERT_NEAR(c, cam.focal_px() * R * (1 / 2.5 - 1 / 10.0), 1e-3);  // 16.6 px * 0.3... = 8.3 px
  // The lit disc: radius c plus the light's own radius (edge pixels that a few lens samples reach and
  // the pixel footprint move the measured radius by well under a pixel; 10% more or less K moves it by 0.8).
  const double light_px = cam.focal_px() * 0.3 / 10, measured = std::sqrt(lit_pixels(s, cam, R, z_f) / M_PI);
  EXPECT_NEAR(measured, c + light_px, 0.6) << "CoC " << c;
  // In focus: the light keeps its own size.
  EXPECT_LE(lit_pixels(s, cam, R, 10.0), int(M_PI * (light_px + 1) * (light_px + 1)));
}

// The truth's lens profile and hole (LensShape::profile, hole; Params::bokeh_profile, catadioptric): a
// light's bokeh through a mirror lens is dark in the middle, through a soap-bubble lens brighter at the rim
// than in the middle, through a soft one the reverse; the disc's size stays the flat lens's.
TEST(GroundTruth, TheLensProfileShapesALightsBokeh) {
  sc::Scene s = one_light();
  s.wall = sc::Wall::Black;
  s.lights[0].emit = 2;  // below the tone curve's clip over the whole disc
  const sc::Camera cam = sc::Camera::of(s, 64, 64);
  const double R = 0.5, z_f = 2.5, c = cam.focal_px() * R * (1 / 2.5 - 1 / 10.0);
  const auto rings = [&](double profile, double hole, int* lit) {
    const ImageRGBA8 im = sc::render_thin_lens(s, cam, R, z_f, 16, sc::LensShape{1, 0, profile, hole});
    double middle = 0, rim = 0;
    int nm = 0, nr = 0;
    *lit = 0;
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x) {
        const double rho = std::hypot(x + 0.5 - 32, y + 0.5 - 32) / c, v = im.px(x, y)[1];
        if (rho < 0.3) middle += v, ++nm;
        if (rho > 0.7 && rho < 0.9) rim += v, ++nr;
        *lit += v > 2;
      }
    return std::pair{middle / nm, rim / nr};
  };
  int flat_lit = 0, lit = 0;
  const auto [fm, fr] = rings(0, 0, &flat_lit);
  EXPECT_NEAR(fm / fr, 1.0, 0.15);
  const auto [hm, hr] = rings(0, 0.5, &lit);
  EXPECT_LT(hm, 0.1 * hr);
  EXPECT_NEAR(lit, flat_lit, 0.1 * flat_lit);
  const auto [bm, br] = rings(1, 0, &lit);
  EXPECT_GT(br, 1.3 * bm);
  EXPECT_NEAR(lit, flat_lit, 0.1 * flat_lit);
  const auto [sm, sr] = rings(-1, 0, &lit);
  EXPECT_GT(sm, 1.3 * sr);
}

// The truth's aperture image (LensShape::image): a light behind the focus plane shows the picture upright,
// one in front turned by 180 degrees (core/aperture_image.hpp), as satlab's spread draws it: an apex-up
// triangle's light lies below the light's centre behind focus and above it in front.
TEST(GroundTruth, AnApertureImageIsUprightBehindFocusAndTurnedInFront) {
  ImageRGBA8 tri(64, 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      const double u = (x + 0.5) / 32 - 1, v = (y + 0.5) / 32 - 1;
      uint8_t* q = tri.px(x, y);
      q[0] = q[1] = q[2] = std::fabs(u) <= (v + 1) / 2 ? 255 : 0;
      q[3] = 255;
    }
  const ApertureImage im = aperture_image_from_pixels(tri, "triangle");
  sc::Scene s = one_light();
  s.wall = sc::Wall::Black;
  s.lights[0].emit = 2;
  const sc::Camera cam = sc::Camera::of(s, 64, 64);
  const auto centroid_y = [&](double focus_z) {
    sc::LensShape shape;
    shape.image = &im;
    const ImageRGBA8 out = sc::render_thin_lens(s, cam, 0.5, focus_z, 16, shape);
    double m = 0, w = 0;
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x) m += out.px(x, y)[1] * (y + 0.5 - 32), w += out.px(x, y)[1];
    return m / w;
  };
  // The triangle's centroid lies a third of its half-height below its centre: CoC / 3 px, the CoC the
  // light's (at depth 10) behind a focus at 2.5 and in front of one at 40.
  const double behind = cam.focal_px() * 0.5 * (1 / 2.5 - 1 / 10.0), front = cam.focal_px() * 0.5 * (1 / 10.0 - 1 / 40.0);
  EXPECT_NEAR(centroid_y(2.5), behind / 3, 0.25 * behind / 3);
  EXPECT_NEAR(centroid_y(40.0), -front / 3, 0.25 * front / 3);
}

// The points scene's manifests carry each light's centre ("dots"), read for `satlab quality`'s shapes; a
// malformed dot is a one-line error.
TEST(GroundTruth, ManifestDotsAreReadAndMalformedOnesRefused) {
  const std::string path = (std::filesystem::temp_directory_path() / ("dots_" + std::to_string(getpid()) + ".json")).string();
  auto manifest = [&](const std::string& dots) {
    std::ofstream(path) << R"({"cases": [{"name": "c", "image": "i.png", "depth": "d.png", "reference": "r.png",
      "focus": 0.5, "aperture": 4, "max_radius": 8, "near_depth": 1, "far_depth": 9)" + dots + "}]}";
  };
  manifest(R"(, "dots": [{"x": 3.5, "y": 4, "z": 12}, {"x": 10, "y": 2.5}])");
  const auto cases = io::load_truth_cases(path);
  ASSERT_EQ(cases[0].dots.size(), 2u);
  EXPECT_EQ(cases[0].dots[0].x, 3.5);
  EXPECT_EQ(cases[0].dots[0].z, 12.0);
  EXPECT_EQ(cases[0].dots[1].y, 2.5);
  manifest(R"(, "dots": [{"x": 3}])");
  EXPECT_THROW(io::load_truth_cases(path), Error);
  manifest(R"(, "dots": 3)");
  EXPECT_THROW(io::load_truth_cases(path), Error);
  std::filesystem::remove(path);
}

TEST(GroundTruth, FocalLengthInPixelsIsHalfTheHeightOverTanHalfFov) {
  const sc::Camera cam = sc::Camera::of(sc::default_scene(), 384, 216);
  EXPECT_NEAR(cam.focal_px(), 216 / (2 * std::tan(M_PI / 6)), 1e-9);
  // A point on the axis of the pinhole ray of a pixel projects back to that pixel.
  const sc::Ray r = cam.pinhole(100.5, 40.5);
  const sc::V q = r.o + r.d * 7.0;
  const double z = cam.depth(q);
  const double u = sc::dot(q - cam.eye, cam.right) / z * cam.focal_px() + 192;
  const double v = -sc::dot(q - cam.eye, cam.up) / z * cam.focal_px() + 108;
  EXPECT_NEAR(u, 100.5, 1e-9);
  EXPECT_NEAR(v, 40.5, 1e-9);
}

nlohmann::json manifest_of(const std::string& dir) {
  std::ifstream f(dir + "/cases.json");
  return nlohmann::json::parse(f);
}

// The held-out set (gen_scene --truth DIR --holdout) is another set of cases: other names, other views of
// the same scenes (the eye moved), other focus depths and lens radii, every one marked as held out.
TEST(GroundTruth, HoldoutCasesAreOtherViewsFocusesAndApertures) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / ("satlab_truth_" + std::to_string(::getpid()));
  const std::string tuned = (root / "tuned").string(), held = (root / "held").string();
  fs::create_directories(tuned);
  fs::create_directories(held);
  sc::TruthOptions o;
  o.width = 32;
  o.height = 18;
  o.lens = 1;
  o.quiet = true;
  o.out_dir = tuned;
  sc::write_ground_truth(o);
  o.out_dir = held;
  o.holdout = true;
  sc::write_ground_truth(o);
  const nlohmann::json a = manifest_of(tuned)["cases"], b = manifest_of(held)["cases"];
  ASSERT_EQ(a.size(), 12u);
  ASSERT_EQ(b.size(), 8u);
  std::set<std::string> names;
  std::set<double> focus_a, focus_b, lens_a, lens_b;
  for (const auto& c : a) {
    names.insert(c["name"].get<std::string>());
    focus_a.insert(c["focus_depth"].get<double>());
    lens_a.insert(c["lens_radius"].get<double>());
    EXPECT_FALSE(c["holdout"].get<bool>());
    EXPECT_EQ(c["eye_offset"].get<double>(), 0.0);
  }
  for (const auto& c : b) {
    EXPECT_TRUE(names.insert(c["name"].get<std::string>()).second) << c["name"];
    focus_b.insert(c["focus_depth"].get<double>());
    lens_b.insert(c["lens_radius"].get<double>());
    EXPECT_TRUE(c["holdout"].get<bool>());
    EXPECT_NE(c["eye_offset"].get<double>(), 0.0);
    EXPECT_TRUE(fs::exists(fs::path(held) / c["reference"].get<std::string>()));
  }
  // `satlab quality --cases` reads the held-out manifest as it reads the committed one.
  EXPECT_EQ(io::load_truth_cases(held + "/cases.json").size(), 8u);
  for (double z : focus_b) EXPECT_EQ(focus_a.count(z), 0u) << "focus depth " << z;
  for (double r : lens_b) EXPECT_EQ(lens_a.count(r), 0u) << "lens radius " << r;
  // The views differ: the same scene's pinhole image from the moved eye is another picture.
  for (const char* scene : {"default", "occlusion"}) {
    const ImageRGBA8 x = io::load_image(tuned + "/" + scene + ".png"),
                     y = io::load_image(held + "/" + scene + ".png");
    ASSERT_EQ(x.data.size(), y.data.size());
    size_t differ = 0;
    for (size_t i = 0; i < x.data.size(); ++i) differ += x.data[i] != y.data[i];
    EXPECT_GT(differ, x.data.size() / 4) << scene;
  }
  fs::remove_all(root);
}

// The cut-out manifests' clicks (tools/gen_cutouts) are read as `depth select --subject X,Y` reads them;
// a malformed click is a one-line error naming the case.
TEST(GroundTruth, ManifestClicksAreReadAndMalformedOnesRefused) {
  const std::string path = (std::filesystem::temp_directory_path() / ("clicks_" + std::to_string(getpid()) + ".json")).string();
  auto manifest = [&](const std::string& clicks) {
    std::ofstream(path) << R"({"cases": [{"name": "c", "image": "i.png", "depth": "d.png", "reference": "r.png",
      "focus": 0.5, "aperture": 4, "max_radius": 8, "near_depth": 1, "far_depth": 9)" + clicks + "}]}";
  };
  manifest(R"(, "clicks": [{"x": 3, "y": 4, "object": 1}, {"x": 10, "y": 2.5}])");
  const auto cases = io::load_truth_cases(path);
  ASSERT_EQ(cases.size(), 1u);
  ASSERT_EQ(cases[0].clicks.size(), 2u);
  EXPECT_EQ(cases[0].clicks[0].x, 3.f);
  EXPECT_EQ(cases[0].clicks[1].y, 2.5f);
  EXPECT_FALSE(cases[0].clicks[1].background);
  manifest("");
  EXPECT_TRUE(io::load_truth_cases(path)[0].clicks.empty());
  manifest(R"(, "clicks": [{"x": "3", "y": 4}])");
  EXPECT_THROW(io::load_truth_cases(path), Error);
  manifest(R"(, "clicks": {"x": 3})");
  EXPECT_THROW(io::load_truth_cases(path), Error);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace satlab
