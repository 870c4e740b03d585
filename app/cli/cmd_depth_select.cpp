// satlab depth select: the subject at the given positions (core/select.hpp's selector, on the GPU where
// available: app/ops/subject_select.hpp) -> its alpha matte as a 16-bit PNG at the image's size, and with
// --depth-out the depth the selection gives (--layout), as `render --subject` uses it.
#include <cstdio>
#include <memory>
#include <string>

#include "app/cli/commands.hpp"
#include "app/io/image_io.hpp"
#include "app/ops/subject_select.hpp"
#include "core/error.hpp"

namespace satlab::cli {
namespace {

struct SelectOptions {
  std::string image, subject, background, out, depth_out, backend = "auto", layout = "open", params;
};

int run_select(const SelectOptions& o) {
  const ImageRGBA8 image = io::load_image(o.image);
  std::vector<SelectClick> clicks = parse_clicks(o.subject, false);
  if (!o.background.empty()) {
    const std::vector<SelectClick> bg = parse_clicks(o.background, true);
    clicks.insert(clicks.end(), bg.begin(), bg.end());
  }
  const SelectParams p = parse_select_params(o.params);
  const SubjectDepth d = subject_depth(image, clicks, parse_subject_layout(o.layout), o.backend, p);
  if (!d.selection.note.empty()) std::fprintf(stderr, "satlab: note: %s\n", d.selection.note.c_str());
  io::save_png16(o.out, d.selection.alpha);
  if (!o.depth_out.empty()) io::save_png16(o.depth_out, d.depth);
  size_t in = 0;
  for (float a : d.selection.alpha.data) in += a >= 0.5f;
  std::printf("wrote %s (%dx%d, %s, working image %dx%d, %.1f%% selected%s%s)\n", o.out.c_str(), image.width,
              image.height, d.summary().c_str(), d.selection.work_width, d.selection.work_height,
              100.0 * double(in) / double(image.pixels()), o.depth_out.empty() ? "" : "; depth ",
              o.depth_out.c_str());
  return 0;
}

}  // namespace

void add_depth_select_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<SelectOptions>();
  CLI::App& depth = command_group(app, "depth", "Depth maps: refinement, stereo");
  CLI::App* sub = depth.add_subcommand("select", "Select the subject at given positions: its alpha matte (and depth)");
  sub->add_option("image", o->image, "The photo")->required();
  sub->add_option("--subject", o->subject, "Positions on the subject, image pixels: X,Y[;X,Y...]")->required();
  sub->add_option("--background", o->background, "Positions on what is not the subject: X,Y[;X,Y...]");
  sub->add_option("--out", o->out, "The alpha matte: 16-bit greyscale PNG at the image's size")->required();
  sub->add_option("--depth-out", o->depth_out, "Also the depth the selection gives (16-bit PNG, [0,1])");
  sub->add_option("--layout", o->layout, "The depth's layout: open, wall or floor (as render --layout)")
      ->check(CLI::IsMember({"open", "wall", "floor"}));
  sub->add_option("--params", o->params,
                  "Selector parameters: work=N,floor=N,threshold=N,iterations=N,model=F,likelihood=N,matte=N,eps=F");
  sub->add_option("--backend", o->backend, "auto (GPU where available), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub->callback([o, &action] { action = [o] { return run_select(*o); }; });
}

}  // namespace satlab::cli
