// satlab depth refine: edge-aware refinement of a rough depth map by the guided filter (core/guided_filter),
// the image as the guide ([0,1], sRGB values as stored), the depth in and out normalised to [0,1], written
// as a 16-bit PNG. The `depth` group takes further leaves (depth stereo) through command_group().
#include <cstdio>
#include <memory>
#include <string>

#include "app/cli/commands.hpp"
#include "app/depth_refine.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"

namespace satlab::cli {
namespace {

struct RefineOptions {
  std::string image, depth, out, backend = "auto";
  GuidedParams g;
};

int run_refine(const RefineOptions& o) {
  const ImageRGBA8 image = io::load_image(o.image);
  ImageF depth = io::load_depth(o.depth);
  bool outside = false;
  for (float v : depth.data)
    if (!(v >= 0.f && v <= 1.f)) outside = true;
  if (outside) {  // a float format (.pfm, .hdr) with raw values: min-max normalised, as the renderer does
    depth = normalise_depth(depth);
    std::fprintf(stderr, "satlab: note: %s holds values outside [0,1]: normalised by its min and max\n",
                 o.depth.c_str());
  }
  if (depth.width != image.width || depth.height != image.height) {
    std::fprintf(stderr, "satlab: note: depth %dx%d resampled to the image's %dx%d\n", depth.width,
                 depth.height, image.width, image.height);
    depth = io::resample_depth(depth, image.width, image.height);
  }
  const RefineResult r = refine_depth(guide_from_rgba8(image), depth, o.g, o.backend);
  if (!r.note.empty()) std::fprintf(stderr, "satlab: note: CPU guided filter: %s\n", r.note.c_str());
  io::save_png16(o.out, r.depth);
  std::printf("wrote %s (%dx%d, radius %d, eps %g, %s, %s, %.1f ms wall incl. transfers)\n", o.out.c_str(),
              image.width, image.height, o.g.radius, double(o.g.eps), o.g.gray ? "gray" : "colour",
              r.backend.c_str(), r.ms);
  return 0;
}

}  // namespace

void add_depth_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RefineOptions>();
  CLI::App& depth = command_group(app, "depth", "Depth maps: refinement by the guided filter, stereo");
  CLI::App* sub =
      depth.add_subcommand("refine", "Refine a rough depth map along the image's edges (guided filter)");
  sub->add_option("image", o->image, "The guide image")->required();
  sub->add_option("--depth", o->depth, "The rough depth map (8/16-bit PNG, .hdr, .pfm)")->required();
  sub->add_option("--out", o->out, "Output: 16-bit greyscale PNG, depth in [0,1]")->required();
  sub->add_option("--radius", o->g.radius, "Window radius in pixels (default 8)")
      ->check(CLI::Range(0, kMaxGuidedRadius));
  sub->add_option("--eps", o->g.eps, "Regularisation eps > 0 (guide in [0,1]; default 1e-3)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--gray", o->g.gray, "Gray guide (luma) instead of the colour covariance");
  sub->add_option("--backend", o->backend, "auto (GPU where available), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub->callback([o, &action] { action = [o] { return run_refine(*o); }; });
}

}  // namespace satlab::cli
