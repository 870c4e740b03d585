// satlab soak: many frames through one pipeline while filters, parameters, the SAT builder and the
// reduction (every variant the backend offers) and image sizes change, then the host (RSS) and device
// memory at the end against the start. A leak per frame, per resize or per variant switch shows as
// drift; the run fails when drift exceeds --max-drift-mb.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/io/assets.hpp"
#include "app/io/image_io.hpp"
#include "app/ops/backend_choice.hpp"
#include "core/error.hpp"
#include "gpu/device.hpp"

namespace satlab::cli {
namespace {

struct SoakOptions {
  int frames = 10000;
  int resize_every = 250;
  int switch_every = 30;  // frames between SAT builder / reduction changes
  double max_drift_mb = 8.0;
  std::string backend = "auto", json;
};

double rss_mb() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

// Sizes cycled through: odd, tiny, wide, tall, the bundled scene's own.
const int kSizes[][2] = {{1280, 720}, {333, 777}, {1, 1}, {1920, 1080}, {4097, 31}, {640, 480}, {31, 2049}};

int run_soak(const SoakOptions& o) {
  const ImageRGBA8 scene = io::load_image(io::default_scene_image());
  const ImageF scene_depth = io::load_depth(io::default_scene_depth());
  std::string note;
  auto pipe = make_backend(o.backend, &note);
  if (!note.empty()) std::fprintf(stderr, "satlab: %s\n", note.c_str());
  std::mt19937 rng(1234);
  auto set_size = [&](int k) {
    const int w = kSizes[k][0], h = kSizes[k][1];
    ImageRGBA8 img(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        std::copy(scene.px(x % scene.width, y % scene.height), scene.px(x % scene.width, y % scene.height) + 4, img.px(x, y));
    pipe->set_image(img);
    pipe->set_depth(io::resample_depth(scene_depth, w, h));
  };
  const std::vector<std::string> builders = pipe->sat_builders(), reductions = pipe->reductions();
  const int warmup = std::min(o.frames, 2 * int(std::size(kSizes)) * o.resize_every) / 2;
  const double rss_first = rss_mb(), dev_first = double(gpu::device_memory_in_use()) / 1048576.0;
  double rss0 = 0, dev0 = 0, ms = 0;
  int resizes = 0, switches = 0, timed = 0;
  unsigned long last_run = 0;
  // A GPU backend whose frame is still running returns the previous frame's timings: each run counts once,
  // and a run whose timings were never read is not counted (timed_frames says how many were).
  const auto add_timings = [&] {
    const auto& t = pipe->timings();
    if (t.empty() || t.front().run == last_run) return;
    last_run = t.front().run, ++timed;
    for (const auto& s : t)
      if (s.parent.empty()) ms += s.ms;
  };
  for (int f = 0; f < o.frames; ++f) {
    if (f % o.resize_every == 0) set_size(resizes++ % int(std::size(kSizes)));
    if (f % o.switch_every == 0) {  // builders and reductions in a pattern that meets every pair
      const size_t k = size_t(switches++);
      pipe->set_algorithms({builders[k % builders.size()], reductions[(k / builders.size() + k) % reductions.size()]});
    }
    Params p;
    p.filter = (f / 7) % 3 == 0 ? FilterKind::Box : FilterKind::Dof;
    p.box_radius = int(rng() % 40);
    p.focus = float(rng() % 1000) / 1000.f;
    p.aperture = float(rng() % 200);
    p.max_radius = float(rng() % 64);
    p.disparity = (f / 13) % 2 == 1;
    pipe->set_params(p);
    pipe->run();
    add_timings();
    if (f + 1 == warmup) rss0 = rss_mb(), dev0 = double(gpu::device_memory_in_use()) / 1048576.0;
  }
  (void)pipe->result();
  add_timings();
  const double rss1 = rss_mb(), dev1 = double(gpu::device_memory_in_use()) / 1048576.0;
  const double host_drift = rss1 - rss0, dev_drift = dev1 - dev0;
  char line[768];
  std::snprintf(
      line, sizeof(line),
      "{\"backend\": \"%s\", \"frames\": %d, \"resizes\": %d, \"algorithm_switches\": %d, "
      "\"sat_builders\": %zu, \"reductions\": %zu, \"measured_from_frame\": %d, "
      "\"host_rss_mb_at_frame_0\": %.1f, \"host_rss_mb\": [%.1f, %.1f], \"host_drift_mb\": %.2f, "
      "\"device_used_mb_at_frame_0\": %.1f, \"device_used_mb\": [%.1f, %.1f], \"device_drift_mb\": %.2f, "
      "\"timed_frames\": %d, \"pipeline_ms_total\": %.1f}",
      pipe->backend_name().c_str(), o.frames, resizes, switches, builders.size(), reductions.size(), warmup,
      rss_first, rss0, rss1, host_drift, dev_first, dev0, dev1, dev_drift, timed, ms);
  std::printf("%s\n", line);
  if (!o.json.empty()) std::ofstream(o.json) << line << "\n";
  if (host_drift > o.max_drift_mb || dev_drift > o.max_drift_mb)
    throw Error("memory grew during the soak: host " + std::to_string(host_drift) + " MB, device " +
                std::to_string(dev_drift) + " MB (limit " + std::to_string(o.max_drift_mb) + " MB)");
  return 0;
}

}  // namespace

void add_soak_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<SoakOptions>();
  CLI::App* sub = app.add_subcommand("soak", "Run many frames while parameters and image sizes change; check memory drift");
  sub->add_option("--frames", o->frames, "Frames to run")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--resize-every", o->resize_every, "Frames between image size changes")
      ->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--switch-every", o->switch_every, "Frames between SAT builder and reduction changes")
      ->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--max-drift-mb", o->max_drift_mb, "Fail when host or device memory grows more than this")
      ->capture_default_str();
  sub->add_option("--backend", o->backend, "Pipeline backend")->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  sub->add_option("--json", o->json, "Also write the result line to this file");
  sub->callback([o, &action] { action = [o] { return run_soak(*o); }; });
}

}  // namespace satlab::cli
