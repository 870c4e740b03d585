// satlab depth pack: a colour video and its depth video into one MP4-AT file (app/io/depth_track.hpp), the
// layout Android's media3 writes for editable videos: players show the colour, satlab reads the depth.
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>

#include "app/cli/commands.hpp"
#include "app/io/clip.hpp"
#include "app/io/depth_track.hpp"
#include "core/error.hpp"

namespace satlab::cli {
namespace {

struct PackOptions {
  std::string colour, depth, out;
  bool inverse = false, interleaved = false;
};

int run_pack(const PackOptions& o) {
  for (const std::string& f : {o.colour, o.depth, o.out}) {
    std::string e = f.size() >= 4 ? f.substr(f.size() - 4) : "";
    for (char& ch : e) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    if (e != ".mp4") throw Error(f + ": depth pack reads and writes .mp4 files");
  }
  // Both must read as clips (a one-line error where they do not), the depth at any size.
  const io::ClipInfo c = io::open_clip(o.colour)->info(), d = io::open_clip(o.depth, true)->info();
  io::write_mp4at(o.colour, o.depth, {uint8_t(o.inverse ? 2 : 1)}, o.interleaved, o.out);
  const io::Mp4AtInfo at = io::find_mp4at(o.out);
  std::printf("wrote %s (%dx%d colour, %s %dx%d)\n", o.out.c_str(), c.width, c.height, at.describe().c_str(), d.width,
              d.height);
  return 0;
}

}  // namespace

void add_depth_pack_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<PackOptions>();
  CLI::App& depth = command_group(app, "depth", "Depth maps: refinement, stereo");
  CLI::App* sub = depth.add_subcommand(
      "pack", "A colour video and its depth video into one MP4 with the depth as an auxiliary track (MP4-AT)");
  sub->add_option("colour", o->colour, "The colour video (.mp4, as satlab render or FFmpeg writes it)")->required();
  sub->add_option("depth", o->depth, "The depth video (.mp4, grey: depth, or with --inverse disparity)")->required();
  sub->add_option("--out", o->out, "The MP4-AT file")->required();
  sub->add_flag("--inverse", o->inverse, "The depth video holds inverse depth (larger is nearer)");
  sub->add_flag("--interleaved", o->interleaved, "Sample offsets from the file's start (auxiliary.tracks.interleaved 1)");
  sub->callback([o, &action] { action = [o] { return run_pack(*o); }; });
}

}  // namespace satlab::cli
