// Generates the bundled scenes with the small deterministic ray tracer of tools/scene/. The default
// scene: a checker floor receding to a dusk backdrop, spheres and boxes at several depths, and small
// coloured lights (near, middle and far) whose blur shows the filter's kernel shape; soft shadows from
// an area sun, contact occlusion and glossy reflections. Writes OUT_DIR/NAME.png (RGBA8, 4 x 4 samples
// per pixel) and OUT_DIR/NAME_depth.png (16-bit, exact camera-space depth of the pixel centre,
// normalised from the nearest to the farthest visible point); NAME is default unless --scene says.
//   gen_scene [--scene NAME] [OUT_DIR] [WIDTH HEIGHT]
// With --truth, writes the thin-lens ground truth of `satlab quality` instead (tools/scene/lens_truth.hpp):
//   gen_scene --truth OUT_DIR [--scene NAME] [--size W H] [--lens N] [--case NAME] [--holdout]
//             [--anamorphic SQUEEZE] [--rotation DEGREES] [--bokeh-profile P] [--catadioptric H] [--aperture-image NAME|FILE] [--chromatic C] [--cat-eye A[,S]]
// (default 384 x 216, 48 x 48 samples; --holdout: the held-out cases, which no DoF rule was fitted on;
// --anamorphic and --rotation: an oval aperture; --bokeh-profile and --catadioptric: a weighted lens and
// a central hole; each recorded in each case as satlab's parameters; --scene points: the point lights'
// scene, only by name, its cases recording each light's centre for `satlab quality`'s shapes)
// With --truth OUT_DIR --right-views, renders only the stereo right views of OUT_DIR/cases.json's scenes
// and adds their fields to it (every other file and field stays as it is):
//   gen_scene --truth OUT_DIR --right-views [--scene NAME]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "core/params.hpp"
#include "tools/scene/lens_truth.hpp"
#include "tools/scene/render.hpp"

namespace sc = satlab::scene;

int main(int argc, char** argv) try {
  std::vector<std::string> pos;
  std::string name = "default";
  sc::TruthOptions truth;
  bool want_truth = false, sized = false, right_views = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--scene" && i + 1 < argc) {
      name = truth.scene = argv[++i];
    } else if (a == "--truth" && i + 1 < argc) {
      want_truth = true;
      truth.out_dir = argv[++i];
    } else if (a == "--size" && i + 2 < argc) {
      truth.width = std::atoi(argv[++i]);
      truth.height = std::atoi(argv[++i]);
      sized = true;
    } else if (a == "--case" && i + 1 < argc) {
      truth.only = argv[++i];
    } else if (a == "--right-views") {
      right_views = true;
    } else if (a == "--holdout") {
      truth.holdout = true;
    } else if (a == "--anamorphic" && i + 1 < argc) {
      truth.anamorphic = std::atof(argv[++i]);
    } else if (a == "--rotation" && i + 1 < argc) {
      truth.rotation = std::atof(argv[++i]);
    } else if (a == "--bokeh-profile" && i + 1 < argc) {
      truth.profile = std::atof(argv[++i]);
    } else if (a == "--catadioptric" && i + 1 < argc) {
      truth.hole = std::atof(argv[++i]);
    } else if (a == "--aperture-image" && i + 1 < argc) {
      truth.aperture_image = argv[++i];
    } else if (a == "--chromatic" && i + 1 < argc) {
      truth.chromatic = std::atof(argv[++i]);
    } else if (a == "--cat-eye" && i + 1 < argc) {
      satlab::Params c;
      satlab::parse_cat_eye(argv[++i], c);
      truth.cat_eye = c.cat_eye, truth.cat_eye_scale = c.cat_eye_scale;
    } else if (a == "--lens" && i + 1 < argc) {
      truth.lens = std::atoi(argv[++i]);
    } else if (a.size() > 1 && a[0] == '-') {
      throw satlab::Error("unknown option '" + a + "'");
    } else {
      pos.push_back(a);
    }
  }
  if (right_views) {
    if (!want_truth || !pos.empty() || sized || truth.holdout || !truth.only.empty())
      throw satlab::Error("usage: gen_scene --truth OUT_DIR --right-views [--scene NAME]");
    sc::write_right_views(truth);
    std::printf("added the right views to %s/cases.json\n", truth.out_dir.c_str());
    return 0;
  }
  if (want_truth) {
    if (!pos.empty()) throw satlab::Error("--truth takes no positional arguments");
    sc::write_ground_truth(truth);
    std::printf("wrote %s/cases.json\n", truth.out_dir.c_str());
    return 0;
  }
  if (sized) throw satlab::Error("--size goes with --truth (else: gen_scene OUT_DIR WIDTH HEIGHT)");
  if (pos.size() != 0 && pos.size() != 1 && pos.size() != 3)
    throw satlab::Error("usage: gen_scene [--scene NAME] [OUT_DIR] [WIDTH HEIGHT]");
  const sc::Scene* scene = sc::find_scene(name);
  if (!scene) throw satlab::Error("unknown scene '" + name + "' (valid: default, occlusion)");
  const std::string out = pos.empty() ? "assets" : pos[0];
  const int W = pos.size() == 3 ? std::atoi(pos[1].c_str()) : 1280,
            H = pos.size() == 3 ? std::atoi(pos[2].c_str()) : 720;
  if (W <= 0 || H <= 0) throw satlab::Error("WIDTH and HEIGHT must be positive");
  const sc::PinholeView v = sc::render_pinhole(*scene, sc::Camera::of(*scene, W, H));
  satlab::io::save_png(out + "/" + name + ".png", v.image);
  satlab::io::save_png16(out + "/" + name + "_depth.png", v.depth);
  std::printf("wrote %s/%s.png and %s/%s_depth.png (%dx%d, camera depth %.2f..%.2f)\n", out.c_str(),
              name.c_str(), out.c_str(), name.c_str(), W, H, v.lo, v.hi);
  return 0;
} catch (const satlab::Error& e) {
  std::fprintf(stderr, "gen_scene: %s\n", e.what());
  return 1;
}
