// satlab render: filter an image without a window and write the result as PNG.
#include <cstdio>
#include <memory>
#include <string>

#include "app/backend.hpp"
#include "app/cli/commands.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"

namespace satlab::cli {
namespace {

struct RenderOptions {
  std::string image, depth, out, filter = "dof", backend = "auto";
  Params params;
};

// Inputs are loaded (and refused) before the backend is created, so a bad file gives exactly one line.
int run_render(const RenderOptions& o) {
  Params p = o.params;
  p.filter = filter_from_string(o.filter);
  ImageRGBA8 img = io::load_image(o.image);
  ImageF depth;
  if (!o.depth.empty()) {
    depth = io::load_depth(o.depth);
    if (depth.width != img.width || depth.height != img.height) {
      std::fprintf(stderr, "satlab: note: depth map %dx%d resampled to the image's %dx%d\n", depth.width,
                   depth.height, img.width, img.height);
      depth = io::resample_depth(depth, img.width, img.height);
    }
  } else if (p.filter == FilterKind::Dof) {
    std::fprintf(stderr, "satlab: note: no --depth given: the dof filter keeps the image sharp\n");
  }
  std::string note;
  std::unique_ptr<Pipeline> pipe = make_backend(o.backend, &note);
  if (!note.empty()) std::fprintf(stderr, "satlab: note: %s\n", note.c_str());
  pipe->set_image(img);
  if (!depth.empty()) pipe->set_depth(depth);
  pipe->set_params(p);
  pipe->run();
  io::save_png(o.out, pipe->result());
  double total = 0;
  std::string stages;
  for (const auto& t : pipe->timings()) {
    total += t.ms;
    char buf[96];
    std::snprintf(buf, sizeof(buf), "  %s %.2f ms", t.name.c_str(), t.ms);
    stages += buf;
  }
  std::printf("wrote %s (%dx%d, %s filter, %s, %.2f ms:%s)\n", o.out.c_str(), img.width, img.height,
              o.filter.c_str(), pipe->backend_name().c_str(), total, stages.c_str());
  return 0;
}

}  // namespace

void add_render_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RenderOptions>();
  CLI::App* sub = app.add_subcommand("render", "Filter an image headless and write the result as PNG");
  sub->option_defaults()->always_capture_default();  // --help shows every default
  sub->add_option("--image,image", o->image, "Input image")->required();
  sub->add_option("--depth", o->depth, "Depth map (resampled to the image if its size differs)");
  sub->add_option("--out,-o", o->out, "Output PNG (written through a temporary file and rename)")->required();
  sub->add_option("--filter", o->filter, "box: one radius; dof: radius from the depth map")
      ->check(CLI::IsMember({"box", "dof"}));
  sub->add_option("--radius", o->params.box_radius, "Box filter radius in pixels")
      ->check(CLI::Range(0, 2047));
  sub->add_option("--focus", o->params.focus, "Depth in focus, normalised to [0,1]")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--aperture", o->params.aperture, "Aperture K of c = K |1/z - 1/z_focus| (pixels)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--max-radius", o->params.max_radius, "Largest blur radius in pixels")
      ->check(CLI::Range(0.0, 2047.0));
  sub->add_option("--near", o->params.near_depth, "Scene depth at normalised depth 0");
  sub->add_option("--far", o->params.far_depth, "Scene depth at normalised depth 1");
  sub->add_flag("--disparity", o->params.disparity, "The depth map stores inverse depth (bright = near)");
  sub->add_option("--backend", o->backend, "Pipeline backend")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub->callback([o, &action] {
    // Inconsistent parameters (--far <= --near, ...) are usage errors (exit 2), found before any I/O.
    try {
      Params p = o->params;
      p.filter = filter_from_string(o->filter);
      validate(p);
    } catch (const Error& e) {
      throw CLI::ValidationError(e.what());
    }
    action = [o] { return run_render(*o); };
  });
}

}  // namespace satlab::cli
