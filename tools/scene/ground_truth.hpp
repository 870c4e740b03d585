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
};

// Writes OUT/SCENE.png, OUT/SCENE_depth.png, OUT/CASE.png (references) and OUT/cases.json.
// Throws satlab::Error on bad options or a failed write.
void write_ground_truth(const TruthOptions& o);

}  // namespace satlab::scene
