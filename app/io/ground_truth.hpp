// The thin-lens ground-truth cases (assets/ground_truth/cases.json, written by tools/gen_scene --truth):
// each names the pinhole image and depth the pipeline filters, the lens reference, and the Params that
// reproduce the lens's CoC. Read by `satlab quality` and the app's ground-truth list.
#pragma once
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/select.hpp"

namespace satlab::io {

struct TruthCase {
  std::string name, scene;
  std::string image, depth, reference;  // paths (resolved against the manifest's folder)
  Params params;                        // dof filter, gather_box, the case's focus / aperture / depths
  struct Crop {
    std::string label;  // the artifact it shows: "silhouette" or "halo"
    int x = 0, y = 0, w = 0, h = 0;
  } crop;  // w == 0: none
  // The stereo right view ("": none): the pinhole camera moved right, a point at scene depth z lying
  // disparity_scale / z px further left in it.
  std::string right;
  double disparity_scale = 0;
  // One click inside each object of at least 2% of the frame (tools/gen_cutouts; others: none), for the
  // selection depth source and subject select's truth.
  std::vector<SelectClick> clicks;
  // A frame of a truth sequence (tools/gen_cutouts --sequence; others: sequence ""): its clip's name,
  // its frame number and the clip's rate, for `satlab quality --video`.
  std::string sequence;
  int frame = 0;
  double fps = 0;
  // The object labels (a 16-bit PNG: 0 background, k object k; "": none) and, for a sequence's frame after
  // the first, how far each object moved since the frame before (objects not listed stood still).
  std::string objects;
  struct Motion {
    int object = 0;
    double dx = 0, dy = 0;
  };
  std::vector<Motion> motion;
  // The point lights' centres in the pinhole view, and their depths (gen_scene --truth --scene points;
  // others: none), for the bokeh's shapes (dot_shape).
  struct Dot {
    double x = 0, y = 0, z = 0;
  };
  std::vector<Dot> dots;
};

// Parses a manifest; throws satlab::Error "FILE: ..." naming the first bad case and field (files are
// not opened here). Params are validated.
std::vector<TruthCase> load_truth_cases(const std::string& manifest);
// assets_dir()/ground_truth/cases.json.
std::string default_truth_cases();

}  // namespace satlab::io
