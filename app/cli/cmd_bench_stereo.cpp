// satlab bench stereo: the GPU stereo matcher (gpu/depth/stereo.cu) on a random pair, default 3840x2160
// with 128 disparities: medians of CUDA-event-timed whole matches after warm-up (pair uploaded once,
// buffers kept), in ms and Mpx x disparities per second, and the median time of each stage.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "gpu/depth/stereo_gpu.hpp"
#include "gpu/device.hpp"

namespace satlab::cli {
namespace {

struct BenchStereoOptions {
  std::string size = "3840x2160", json;
  std::vector<std::string> builders = {gpu::kStereoSatBuilder};
  int disparities = 128, window = 4, wide = -1, runs = 20, warmup = 3;
};

int run_bench_stereo(const BenchStereoOptions& o) {
  const auto& dev = gpu::probe();
  if (!dev.available) throw Error("bench needs a CUDA device: " + dev.reason);
  int w = 0, h = 0;
  if (std::sscanf(o.size.c_str(), "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384)
    throw Error("--size: expected WIDTHxHEIGHT within 16384x16384, got " + o.size);
  StereoParams p;
  p.disparities = o.disparities;
  p.window_radius = o.window;
  p.wide_radius =
      o.wide >= 0 ? o.wide : std::min(StereoParams{}.wide_radius, stereo_max_wide_radius(o.window));
  validate(p);
  const std::string wide =
      p.wide_radius ? std::to_string(2 * p.wide_radius + 1) + "x" + std::to_string(2 * o.window + 1) : "none";
  std::printf("# %s, stereo %dx%d, %d disparities, window %dx%d, wide window %s, median of %d runs\n",
              dev.name.c_str(), w, h, o.disparities, 2 * o.window + 1, 2 * o.window + 1, wide.c_str(),
              o.runs);
  nlohmann::json rows = nlohmann::json::array();
  for (const std::string& builder : o.builders) {
    const gpu::StereoTiming t = gpu::time_stereo(w, h, p, o.warmup, o.runs, builder);
    const double mpxd = double(w) * double(h) * double(o.disparities) / 1e6 / (t.median_ms * 1e-3);
    std::printf("stereo %-22s %9.3f ms  %10.0f Mpx*disparities/s  (min %.3f ms)\n", builder.c_str(),
                t.median_ms, mpxd, t.min_ms);
    nlohmann::json stages = nlohmann::json::object();
    for (const auto& [stage, ms] : t.stages) {
      std::printf("  %-28s %9.3f ms\n", stage.c_str(), ms);
      stages[stage] = ms;
    }
    rows.push_back({{"family", "stereo"},
                    {"sat_builder", builder},
                    {"width", w},
                    {"height", h},
                    {"disparities", o.disparities},
                    {"window", 2 * o.window + 1},
                    {"wide_window", p.wide_radius ? 2 * p.wide_radius + 1 : 0},
                    {"ms", t.median_ms},
                    {"min_ms", t.min_ms},
                    {"mpx_disparities_per_s", mpxd},
                    {"stages_ms", stages}});
  }
  if (!o.json.empty()) {
    nlohmann::json j = {
        {"device", dev.name},
        {"git_rev", git_rev()},
        {"runs", o.runs},
        {"statistic", "median of CUDA-event-timed whole matches, each waited for, after warm-up"},
        {"rows", rows}};
    io::save_text(o.json, j.dump(1) + "\n");
  }
  return 0;
}

}  // namespace

void add_bench_stereo_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchStereoOptions>();
  CLI::App* sub = command_group(app, "bench", "Benchmarks")
                      .add_subcommand("stereo", "GPU stereo matching: ms and Mpx*disparities/s, per stage");
  sub->add_option("--size", o->size, "WIDTHxHEIGHT (default 3840x2160)");
  sub->add_option("--disparities", o->disparities, "Disparities searched (default 128)")
      ->check(CLI::Range(1, kMaxDisparities));
  sub->add_option("--window", o->window, "Aggregation window radius (default 4)")
      ->check(CLI::Range(0, kMaxStereoWindowRadius));
  sub->add_option("--wide", o->wide,
                  "Wide window's horizontal radius (default 56, less where --window needs; 0: none)")
      ->check(CLI::Range(0, kMaxStereoWideRadius));
  sub->add_option("--sat-builders", o->builders,
                  "Tables of the cost slices, one row each: box_rows (the default) or 8-bit SAT builders "
                  "(registry names)");
  sub->add_option("--runs", o->runs, "Timed runs (median)")->check(CLI::Range(1, 100000));
  sub->add_option("--warmup", o->warmup, "Untimed runs first")->check(CLI::NonNegativeNumber);
  sub->add_option("--json", o->json, "Also write the rows as JSON to this file");
  sub->callback([o, &action] { action = [o] { return run_bench_stereo(*o); }; });
}

}  // namespace satlab::cli
