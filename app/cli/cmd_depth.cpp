// satlab depth refine: a rough, noisy or low-resolution depth map -> depth at the image's size along its
// edges, by one of the refiners of core/refine.hpp (app/ops/depth_refine.hpp; default: the best one) or the
// guided filter with chosen parameters, the image as the guide, the depth normalised to [0,1], written as a
// 16-bit PNG. The `depth` group takes further leaves (depth stereo) through command_group().
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "app/cli/commands.hpp"
#include "app/io/image_io.hpp"
#include "app/ops/depth_refine.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"
#include "core/refine.hpp"

namespace satlab::cli {
namespace {

struct RefineOptions {
  std::string image, depth, confidence, out, backend = "auto", refine = "auto";
  GuidedParams g;
  bool guided_given = false;  // --radius, --eps or --gray
};

int run_refine(const RefineOptions& o) {
  const ImageRGBA8 image = io::load_image(o.image);
  ImageF depth = io::load_depth(o.depth);
  ImageF confidence;
  if (!o.confidence.empty()) confidence = io::load_depth(o.confidence);
  bool outside = false;
  for (float v : depth.data)
    if (!(v >= 0.f && v <= 1.f)) outside = true;
  if (outside) {  // a float format (.pfm, .hdr) with raw values: min-max normalised, as the renderer does
    depth = normalise_depth(depth);
    std::fprintf(stderr, "satlab: note: %s holds values outside [0,1]: normalised by its min and max\n",
                 o.depth.c_str());
  }
  // Here `auto` is the default refiner whatever the depth: refining is what was asked for.
  const std::string choice = o.refine == "auto" ? kDefaultRefiner : o.refine;
  RefinedDepth r = refine_for_image(image, depth, confidence.empty() ? nullptr : &confidence, choice,
                                    DepthOrigin::File, o.backend, o.guided_given ? &o.g : nullptr);
  if (!r.note.empty())
    std::fprintf(stderr, "satlab: note: %s on the CPU: %s\n", r.refiner.c_str(), r.note.c_str());
  for (float& v : r.depth.data) v = std::clamp(v, 0.f, 1.f);
  io::save_png16(o.out, r.depth);
  std::string guided;
  if (r.refiner == "guided") {
    char buf[96];
    std::snprintf(buf, sizeof(buf), ", radius %d, eps %g, %s", o.g.radius, double(o.g.eps),
                  o.g.gray ? "gray" : "colour");
    guided = buf;
  }
  std::printf("wrote %s (%dx%d from %dx%d, %s%s, wall time incl. transfers)\n", o.out.c_str(), image.width,
              image.height, depth.width, depth.height, r.summary().c_str(), guided.c_str());
  return 0;
}

}  // namespace

void add_depth_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RefineOptions>();
  CLI::App& depth = command_group(app, "depth", "Depth maps: refinement, stereo");
  CLI::App* sub = depth.add_subcommand(
      "refine", "Refine a rough, noisy or low-resolution depth map to the image's size along its edges");
  sub->add_option("image", o->image, "The guide image")->required();
  sub->add_option("--depth", o->depth, "The rough depth map, any size (8/16-bit PNG, .hdr, .pfm)")
      ->required();
  sub->add_option("--confidence", o->confidence,
                  "Confidence of each depth sample in [0,1] (greyscale, the depth's size; default: all 1)");
  sub->add_option("--out", o->out, "Output: 16-bit greyscale PNG at the image's size, depth in [0,1]")
      ->required();
  sub->add_option("--refine", o->refine,
                  "Refiner: auto (" + std::string(kDefaultRefiner) + "), or one of " + refiner_list() +
                      " (default: auto; guided where only --radius/--eps/--gray are given)")
      ->check(refine_choice());
  sub->add_option("--radius", o->g.radius, "Guided filter: window radius in pixels (default 8)")
      ->check(CLI::Range(0, kMaxGuidedRadius));
  sub->add_option("--eps", o->g.eps, "Guided filter: regularisation eps > 0 (guide in [0,1]; default 1e-3)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--gray", o->g.gray, "Guided filter: gray guide (luma) instead of the colour covariance");
  sub->add_option("--backend", o->backend, "auto (GPU where available), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub->callback([o, sub, &action] {
    o->guided_given = sub->get_option("--radius")->count() || sub->get_option("--eps")->count() ||
                      sub->get_option("--gray")->count();
    if (o->guided_given) {
      if (!sub->get_option("--refine")->count()) o->refine = "guided";  // as before refiners existed
      if (o->refine != "guided")
        throw CLI::ValidationError("--radius, --eps and --gray tune --refine guided, not " + o->refine);
    }
    action = [o] { return run_refine(*o); };
  });
}

}  // namespace satlab::cli
