// Thin-lens ground truth for `satlab quality`: per scene, the pinhole view and its depth (the
// pipeline's input) and, per case (focus x aperture), the same view through a thin lens. The CoC model
// is the pipeline's (core/params.hpp): with the depth map normalised from the nearest (lo) to the
// farthest (hi) visible depth, near_depth = lo, far_depth = hi, focus = (z_f - lo) / (hi - lo), and a
// lens of radius R gives aperture K = focal_px * R (a point at depth z spreads over a disc of radius
// K |1/z - 1/z_f| pixels). max_radius is the largest CoC in the frame rounded up, so the pipeline's
// clamp never binds.
#pragma once
#include <string>

namespace satlab::scene {

struct TruthOptions {
  std::string out_dir;
  int width = 384, height = 216;
  int lens = 48;      // n x n lens samples per pixel
  std::string scene;  // "": every scene
  std::string only;   // "": every case; else just the case of this name
  bool quiet = false;
  bool holdout = false;  // the held-out cases (other views, focus depths and lens radii) instead
  double anamorphic = 1, rotation = 0;  // the aperture's squeeze and turn (render.hpp, LensShape)
  double profile = 0, hole = 0;         // its profile and central hole (LensShape; Params::bokeh_profile, catadioptric)
  std::string aperture_image;           // a picture as the aperture (LensShape::image; Params::aperture_image)
  double chromatic = 0;                 // red and blue's focus (LensShape::chromatic; Params::chromatic)
  double cat_eye = 0, cat_eye_scale = 1;  // the cat-eye stop (LensShape; Params::cat_eye, cat_eye_scale)
};

// Writes OUT/SCENE.png, OUT/SCENE_depth.png, OUT/SCENE_right.png (the stereo right view), OUT/CASE.png
// (references) and OUT/cases.json. Throws satlab::Error on bad options or a failed write.
void write_ground_truth(const TruthOptions& o);

// The right view of a rectified stereo pair with the pinhole view as the left (for `satlab quality
// --depth stereo`): the same camera, its eye moved right by a baseline B chosen so that the nearest
// visible depth (the manifest's near_depth) has a disparity of kRightDisparityFraction of the width; a
// point at depth z then lies disparity_scale / z px further left in it (disparity_scale = focal_px * B).
// Rendered with the pinhole view's lens x lens sub-pixel samples.
constexpr double kRightDisparityFraction = 1.0 / 16;
// Renders OUT/SCENE_right.png for every scene of OUT/cases.json and adds each case's "right",
// "baseline" and "disparity_scale" fields, leaving every other file and field as it is (the manifest
// is rewritten with the same formatting). o.scene limits it to one scene.
void write_right_views(const TruthOptions& o);

}  // namespace satlab::scene
