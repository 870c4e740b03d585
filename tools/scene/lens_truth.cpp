#include "tools/scene/lens_truth.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "app/io/aperture_files.hpp"
#include "app/io/image_io.hpp"
#include "core/chromatic.hpp"
#include "core/error.hpp"
#include "core/params.hpp"
#include "core/reference.hpp"
#include "tools/scene/render.hpp"
#include "tools/scene/scene.hpp"

namespace satlab::scene {
namespace {

// Focus settings by camera-space depth, and lens radii in scene units (the CoC in pixels scales with
// the image height). Crops are fractions of the frame around a depth edge that shows this focus
// setting's artifact: "silhouette" (a blurred foreground over a sharper background) or "halo" (a sharp
// foreground over a blurred background).
struct Focus {
  const char* name;
  double z;
  const char* crop_label;
  double cx, cy;  // crop centre, fractions of width and height
};
struct SceneCases {
  const char* scene;
  double eye_offset;  // along the camera's right axis, scene units
  std::vector<Focus> focus;
};
const std::vector<SceneCases> kCases = {
    {"default",
     0.0,
     {{"near", 3.6, "halo", 0.31, 0.40},          // the red sphere sharp, the garland blurred behind it
      {"middle", 6.5, "silhouette", 0.45, 0.48},  // the red sphere blurred over the sharp blue one
      {"far", 21.0, "silhouette", 0.31, 0.40}}},  // the red sphere blurred over the sharp garland
    {"occlusion",
     0.0,
     {{"near", 2.9, "halo", 0.65, 0.30},          // the yellow post sharp before the blurred wall
      {"middle", 7.0, "silhouette", 0.25, 0.34},  // the white post and wire blurred over the ball's depth
      {"far", 13.0, "silhouette", 0.25, 0.34}}},  // the white post and wire blurred over the sharp tiles
    // The bokeh's shapes (only with --scene points): its lights' rows in front of and behind focus.
    {"points", 0.0, {{"middle", 6.0, "dots", 0.5, 0.5}}},
};
struct Aperture {
  const char* name;
  double radius;
};
const std::vector<Aperture> kApertures = {{"small", 0.08}, {"large", 0.2}};

// The held-out set (--holdout): no rule or constant of the DoF modes was fitted on it. Each scene seen
// from an eye moved sideways, so the depth edges fall on other content (other lights behind the wire),
// focused between the tuned set's depths, through two other lens radii.
const std::vector<SceneCases> kHoldout = {
    {"default",
     0.5,
     {{"near2", 4.8, "silhouette", 0.36, 0.40},    // the red sphere a little blurred over the blue one
      {"far2", 12.0, "silhouette", 0.30, 0.40}}},  // the near spheres blurred over the sharp middle
    {"occlusion",
     -0.35,
     {{"near2", 4.2, "halo", 0.55, 0.30},         // the nearer posts blurred, the wall too
      {"far2", 9.5, "silhouette", 0.30, 0.34}}},  // the posts and wire blurred over the nearly sharp wall
};
const std::vector<Aperture> kHoldoutApertures = {{"medium", 0.13}, {"wide", 0.26}};
const double kCropW = 0.2, kCropH = 0.24;  // crop size, fractions of width and height

struct RightView {
  ImageRGBA8 image;
  double baseline = 0, disparity_scale = 0;
};
// near_depth as the manifest stores it (float), so that write_right_views reproduces write_ground_truth.
RightView render_right(const Scene& s, int width, int height, double eye_offset, float near_depth, int lens) {
  const Camera left = Camera::of(s, width, height, eye_offset);
  RightView r;
  r.baseline = kRightDisparityFraction * width * double(near_depth) / left.focal_px();
  r.disparity_scale = left.focal_px() * r.baseline;
  r.image = render_pinhole(s, Camera::of(s, width, height, eye_offset + r.baseline), lens).image;
  return r;
}

}  // namespace

void write_ground_truth(const TruthOptions& o) {
  if (o.width < 8 || o.height < 8) throw Error("--size must be at least 8 x 8");
  if (o.lens < 1 || o.lens > 64) throw Error("--lens must be in [1, 64]");
  if (!(o.anamorphic >= 0.25 && o.anamorphic <= 4)) throw Error("--anamorphic must be in [0.25, 4]");
  if (!(o.profile >= -1 && o.profile <= 1)) throw Error("--bokeh-profile must be in [-1, 1]");
  if (!(o.hole >= 0 && o.hole <= 0.8)) throw Error("--catadioptric must be in [0, 0.8]");
  if (!(o.chromatic >= -0.5 && o.chromatic <= 0.5)) throw Error("--chromatic must be in [-0.5, 0.5]");
  if (!(o.cat_eye >= 0 && o.cat_eye <= 0.8) || !(o.cat_eye_scale >= 1 && o.cat_eye_scale <= 2))
    throw Error("--cat-eye must be AMOUNT in [0, 0.8] and SCALE in [1, 2]");
  std::shared_ptr<const ApertureImage> picture;
  if (!o.aperture_image.empty()) {
    if (o.profile != 0 || o.hole != 0) throw Error("--aperture-image takes no --bokeh-profile or --catadioptric");
    picture = find_aperture_image(io::use_aperture_image(o.aperture_image));
  }
  if (!o.scene.empty() && !find_scene(o.scene)) throw Error("unknown scene '" + o.scene + "'");
  nlohmann::json cases = nlohmann::json::array();
  const auto& table = o.holdout ? kHoldout : kCases;
  const auto& apertures = o.holdout ? kHoldoutApertures : kApertures;
  for (const SceneCases& sc : table) {
    if (o.scene.empty() ? std::string(sc.scene) == "points" : o.scene != sc.scene) continue;
    if (!o.only.empty() && o.only.rfind(std::string(sc.scene) + "_", 0) != 0) continue;
    const Scene& s = *find_scene(sc.scene);
    const Camera cam = Camera::of(s, o.width, o.height, sc.eye_offset);
    // The pinhole view averages as many sub-pixel samples as a reference pixel has (n x n, on a regular
    // grid): with fewer, a fine in-focus texture differs from the reference by its sampling alone.
    const PinholeView view = render_pinhole(s, cam, o.lens);
    const std::string image = std::string(sc.scene) + ".png", depth = std::string(sc.scene) + "_depth.png";
    io::save_png(o.out_dir + "/" + image, view.image);
    io::save_png16(o.out_dir + "/" + depth, view.depth);
    // The depth as the pipeline will see it: 16-bit quantised, then normalised by its min/max.
    const ImageF d = normalise_depth(io::load_depth(o.out_dir + "/" + depth));
    const std::string right = std::string(sc.scene) + "_right.png";
    const RightView rv = render_right(s, o.width, o.height, sc.eye_offset, float(view.lo), o.lens);
    io::save_png(o.out_dir + "/" + right, rv.image);
    for (const Focus& f : sc.focus)
      for (const Aperture& a : apertures) {
        const std::string name = std::string(sc.scene) + "_" + f.name + "_" + a.name;
        if (!o.only.empty() && o.only != name) continue;
        Params p;
        p.near_depth = float(view.lo);
        p.far_depth = float(view.hi);
        p.focus = float((f.z - view.lo) / (view.hi - view.lo));
        p.aperture = float(cam.focal_px() * a.radius);
        p.max_radius = 2047.f;
        p.chromatic = float(o.chromatic);
        const Params rb = chromatic_pass(p);  // red and blue's CoC (the same as p's without chromatic)
        float largest = 0.f;
        for (float v : d.data)
          largest = std::max({largest, std::fabs(coc_from_depth(v, p)), std::fabs(coc_from_depth(v, rb))});
        p.max_radius = std::ceil(largest);
        const auto t0 = std::chrono::steady_clock::now();
        io::save_png(o.out_dir + "/" + name + ".png", render_thin_lens(s, cam, a.radius, f.z, o.lens,
                                                                     LensShape{o.anamorphic, o.rotation, o.profile, o.hole, picture.get(), o.chromatic, o.cat_eye, o.cat_eye_scale}));
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const int cw = std::max(4, int(std::lround(kCropW * o.width))),
                  ch = std::max(4, int(std::lround(kCropH * o.height)));
        const int cx = std::clamp(int(std::lround(f.cx * o.width)) - cw / 2, 0, o.width - cw);
        const int cy = std::clamp(int(std::lround(f.cy * o.height)) - ch / 2, 0, o.height - ch);
        cases.push_back({{"name", name},
                         {"scene", sc.scene},
                         {"width", o.width},
                         {"height", o.height},
                         {"image", image},
                         {"depth", depth},
                         {"reference", name + ".png"},
                         {"focus", p.focus},
                         {"aperture", p.aperture},
                         {"max_radius", p.max_radius},
                         {"near_depth", p.near_depth},
                         {"far_depth", p.far_depth},
                         {"response_shoulder", kToneShoulder},
                         {"focus_depth", f.z},
                         {"lens_radius", a.radius},
                         {"eye_offset", sc.eye_offset},
                         {"holdout", o.holdout},
                         {"focal_px", cam.focal_px()},
                         {"lens_samples", o.lens * o.lens},
                         {"largest_coc", largest},
                         {"crop", {{"label", f.crop_label}, {"x", cx}, {"y", cy}, {"w", cw}, {"h", ch}}},
                         {"right", right},
                         {"baseline", rv.baseline},
                         {"disparity_scale", rv.disparity_scale}});
        if (o.anamorphic != 1 || (picture && o.rotation != 0))
          cases.back()["anamorphic"] = o.anamorphic, cases.back()["blade_rotation"] = o.rotation;
        if (std::string(sc.scene) == "points") {  // each light's centre in the pinhole view, for quality's shapes
          nlohmann::json dots = nlohmann::json::array();
          const double tf = cam.tan_half_fov();
          for (const Sphere& l : s.lights) {
            const V q = l.c - cam.eye;
            const double z = dot(q, cam.forward), u = dot(q, cam.right) / (z * tf * o.width / o.height),
                         v = dot(q, cam.up) / (z * tf);
            dots.push_back({{"x", (u + 1) * 0.5 * o.width}, {"y", (1 - v) * 0.5 * o.height}, {"z", z}});
          }
          cases.back()["dots"] = dots;
        }
        if (o.profile != 0) cases.back()["bokeh_profile"] = o.profile;
        if (o.hole != 0) cases.back()["catadioptric"] = o.hole;
        if (picture) cases.back()["aperture_image"] = o.aperture_image;
        if (o.chromatic != 0) cases.back()["chromatic"] = o.chromatic;
        if (o.cat_eye != 0) cases.back()["cat_eye"] = o.cat_eye, cases.back()["cat_eye_scale"] = o.cat_eye_scale;
        if (!o.quiet)
          std::printf("%-24s focus %.3f (z %.1f)  K %.2f px  largest CoC %.2f px  (%.1f s)\n", name.c_str(),
                      p.focus, f.z, p.aperture, largest, secs);
      }
  }
  if (cases.empty()) throw Error("no case named '" + o.only + "'");
  nlohmann::json manifest = {
      {"about",
       "thin-lens ground truth made by tools/gen_scene --truth: paths are relative to this file; focus, "
       "aperture, "
       "near_depth and far_depth are satlab Params (CoC = aperture * |1/z - 1/z_focus| px, z = near + d (far "
       "- "
       "near)); max_radius is the largest CoC of the frame rounded up, so the clamp never binds; "
       "response_shoulder is the camera's (tone(): radiance v stored as sRGB(min(v / (1 + s v), 1)))"},
      {"cases", cases}};
  io::save_text(o.out_dir + "/cases.json", manifest.dump(1) + "\n");
}

void write_right_views(const TruthOptions& o) {
  const std::string path = o.out_dir + "/cases.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open (gen_scene --truth writes it)");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": " + e.what());
  }
  if (!manifest.contains("cases") || !manifest["cases"].is_array()) throw Error(path + ": no cases");
  struct Done {
    std::string key, file;
    RightView view;
  };
  std::vector<Done> done;  // one right view per scene, size and eye
  for (nlohmann::json& c : manifest["cases"]) {
    const std::string name = c.value("scene", std::string());
    if (!o.scene.empty() && name != o.scene) continue;
    const Scene* s = find_scene(name);
    if (!s) throw Error(path + ": unknown scene '" + name + "'");
    const int w = c.at("width").get<int>(), h = c.at("height").get<int>();
    const int lens = int(std::lround(std::sqrt(c.at("lens_samples").get<double>())));
    const double eye = c.value("eye_offset", 0.0);
    const float near_depth = c.at("near_depth").get<float>();
    const std::string file = c.at("image").get<std::string>();
    const std::string right = file.substr(0, file.rfind('.')) + "_right.png";
    const std::string key = file + " " + std::to_string(w) + "x" + std::to_string(h);
    auto it = std::find_if(done.begin(), done.end(), [&](const Done& d) { return d.key == key; });
    if (it == done.end()) {
      done.push_back({key, right, render_right(*s, w, h, eye, near_depth, lens)});
      io::save_png(o.out_dir + "/" + right, done.back().view.image);
      if (!o.quiet)
        std::printf("%s: baseline %.4f, disparity %.2f px at the nearest depth\n", right.c_str(),
                    done.back().view.baseline, done.back().view.disparity_scale / near_depth);
      it = done.end() - 1;
    }
    c["right"] = it->file;
    c["baseline"] = it->view.baseline;
    c["disparity_scale"] = it->view.disparity_scale;
  }
  if (done.empty()) throw Error(path + ": no case of scene '" + o.scene + "'");
  io::save_text(path, manifest.dump(1) + "\n");
}

}  // namespace satlab::scene
