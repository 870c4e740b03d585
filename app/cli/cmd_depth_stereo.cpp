// satlab depth stereo LEFT RIGHT --out D.png: the left image's disparity from a rectified pair
// (core/stereo.hpp; on the GPU where there is one), written as a KITTI 16-bit PNG (pixels x 256, 0 where
// no match survived), refined by default (app/ops/depth_refine.hpp: the checks' rejections as the confidence).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "app/cli/commands.hpp"
#include "app/io/image_io.hpp"
#include "app/ops/depth_refine.hpp"
#include "app/ops/stereo_matching.hpp"
#include "core/refine.hpp"

namespace satlab::cli {
namespace {

struct StereoOptions {
  std::string left, right, out, backend = "auto", sat_builder;
  int max_disparity = 64;
  int wide = -1;  // -1: the default, lowered to what fits beside a larger --window
  StereoParams params;
  std::string refine = "auto";
  GuidedParams guided;
  bool guided_given = false;  // --refine-radius or --refine-eps
};

int run_depth_stereo(StereoOptions& o) {
  const ImageRGBA8 left = io::load_image(o.left), right = io::load_image(o.right);
  o.params.disparities = o.max_disparity + 1;
  o.params.wide_radius =
      o.wide >= 0 ? o.wide
                  : std::min(StereoParams{}.wide_radius, stereo_max_wide_radius(o.params.window_radius));
  std::string note;
  const auto t0 = std::chrono::steady_clock::now();
  const StereoResult r = match_stereo(left, right, o.params, o.backend, o.sat_builder, &note);
  const RefinedDepth refined =
      refine_disparity(left, r, o.refine, o.backend, o.guided_given ? &o.guided : nullptr);
  const ImageF& disparity = refined.depth;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (const std::string& n : {note, refined.note})
    if (!n.empty()) std::fprintf(stderr, "satlab: note: %s\n", n.c_str());
  io::save_disparity_png(o.out, disparity);
  size_t kept = 0;
  for (float d : r.raw.data) kept += d != kNoDisparity;
  std::printf(
      "%s: %dx%d, disparities 0..%d, window %d, wide window %dx%d, %.1f%% kept by the checks%s, %s, %.0f ms "
      "(with uploads)\n",
      o.out.c_str(), left.width, left.height, o.max_disparity, 2 * o.params.window_radius + 1,
      2 * o.params.wide_radius + 1, 2 * o.params.window_radius + 1,
      100.0 * double(kept) / double(r.raw.data.size()), o.params.fill_holes ? ", holes filled" : "",
      refined.summary().c_str(), ms);
  return 0;
}

}  // namespace

void add_depth_stereo_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<StereoOptions>();
  CLI::App& depth = command_group(app, "depth", "Depth from the images themselves");
  CLI::App* sub =
      depth.add_subcommand("stereo", "Disparity of the left image of a rectified pair (KITTI 16-bit PNG)");
  sub->add_option("left", o->left, "Left image (the reference)")->required();
  sub->add_option("right", o->right, "Right image, rectified: same rows, the camera moved right")->required();
  sub->add_option("--out", o->out, "Output: 16-bit PNG of disparity x 256, 0 where none")->required();
  sub->add_option("--max-disparity", o->max_disparity, "Search disparities 0..N pixels (default 64)")
      ->check(CLI::Range(0, kMaxDisparities - 1));
  sub->add_option("--window", o->params.window_radius, "Aggregation window radius (default 4: 9x9)")
      ->check(CLI::Range(0, kMaxStereoWindowRadius));
  sub->add_option(
         "--wide", o->wide,
         "Wide window's horizontal radius, for pixels the square window rejects (default 56: 113 x "
         "the window's height, less where a larger --window would overflow its 16-bit sums; 0: none)")
      ->check(CLI::Range(0, kMaxStereoWideRadius));
  sub->add_option("--uniqueness", o->params.uniqueness,
                  "Reject a match unless every disparity 2+ away costs this many percent more (default 25)")
      ->check(CLI::Range(0, 100));
  sub->add_option("--min-margin", o->params.min_margin,
                  "... and at least this many census bits over the window (default 0)")
      ->check(CLI::Range(0, 65535));
  sub->add_option("--census-threshold", o->params.census_threshold,
                  "Census bit set where a neighbour is darker than the centre by more than this (default 2)")
      ->check(CLI::Range(0, 255));
  sub->add_flag(
      "--no-fill", [o](int64_t) { o->params.fill_holes = false; },
      "Leave pixels the left-right check rejects at 0 instead of filling them");
  sub->add_option(
         "--refine", o->refine,
         "Refiner of the disparity, the left image as the guide and the checks as confidence: auto (" +
             std::string(kDefaultRefiner) + "), none, or one of " + refiner_list() +
             " (a bare --refine: guided, as before refiners existed)")
      ->expected(0, 1);
  sub->add_option("--refine-radius", o->guided.radius, "Guided filter radius (--refine guided; default 8)")
      ->check(CLI::Range(0, kMaxGuidedRadius));
  sub->add_option("--refine-eps", o->guided.eps,
                  "Guided filter eps, guide in [0,1] (--refine guided; default 1e-3)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--backend", o->backend, "auto, cpu or gpu")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub->add_option(
      "--sat-builder", o->sat_builder,
      "GPU: the cost slices' table: box_rows (the default) or an 8-bit SAT builder's registry name");
  sub->callback([o, sub, &action] {
    if (o->refine.empty() || o->refine == "true") o->refine = "guided";  // the bare flag of old scripts
    if (const std::string why = refine_choice()(o->refine); !why.empty())
      throw CLI::ValidationError("--refine", why);
    o->guided_given = sub->get_option("--refine-radius")->count() || sub->get_option("--refine-eps")->count();
    if (o->guided_given && o->refine != "guided")
      throw CLI::ValidationError("--refine-radius and --refine-eps tune --refine guided, not " + o->refine);
    action = [o] { return run_depth_stereo(*o); };
  });
}

}  // namespace satlab::cli
