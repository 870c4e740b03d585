// satlab bench stream: the whole streaming `satlab render` of a generated image (app/ops/stream_scene.hpp:
// noise over structure, an uncompressed striped RGB TIFF) at 0.25, 1 and 4 Gpx (65536^2 is "4 Gpx"), into
// an uncompressed TIFF. Each render runs as a child process, so that its peak RSS is its own (wait4's
// ru_maxrss) and never the generator's (another child, run first). Reported: wall time (median of --runs),
// Gpx/s, peak host RSS, peak device memory (the device's used memory sampled every 2 ms while the render
// runs, above what it was before it started; 0 on the CPU) and, on the GPU, the fraction of the pinned
// H2D+D2H copy bandwidth C measured in the same run (gpu::measure_host_copy, both directions at once) that
// the render's minimum bytes over the bus reach: 4 bytes a pixel up (RGBA8), 4 down, and with the dof
// filter 4 more up (float depth).
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/child_run.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/render_stream.hpp"
#include "app/io/stream_io.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/memory_budget.hpp"
#include "app/ops/stream_scene.hpp"
#include "core/error.hpp"
#include "gpu/bench/primitives.hpp"
#include "gpu/device.hpp"


namespace satlab::cli {
namespace {

struct BenchStreamOptions {
  std::vector<double> gpx = {0.25, 1, 4};
  std::vector<std::string> sizes;  // WxH; replaces --gpx
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string backend = "auto", filter = "box", dof_mode, memory_budget, json;
  int radius = 10, runs = 1;
  uint32_t tile = 0;
  bool keep = false, generate_only = false;
};

struct Child {
  double wall_s = 0;
  uint64_t peak_rss = 0;  // bytes
  uint64_t peak_device = 0;
  // render's stage note (render_stream.cpp): the statistics passes, then the busy seconds of reading,
  // filtering and writing (run at once), and the tiled run's wall; -1 where it printed none.
  double stages[5] = {-1, -1, -1, -1, -1};
};

// The stage note in render's stderr, whose other lines are passed on to ours.
void take_stages(const std::string& path, Child& c) {
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) {
    const size_t at = line.find(kStageNote);
    if (at == std::string::npos ||
        std::sscanf(line.c_str() + at + std::strlen(kStageNote), kStageFormat, &c.stages[0], &c.stages[1],
                    &c.stages[2], &c.stages[3], &c.stages[4]) != 5)
      std::fprintf(stderr, "%s\n", line.c_str());
  }
}

// Runs `args` (argv[0] the program) to its end; the device's used memory is sampled meanwhile where
// `sample_device`. Throws satlab::Error when it cannot start or does not exit 0.
Child run_child(const std::vector<std::string>& args, bool sample_device, const std::string& log = "") {
  const ChildRun r = cli::run_child(args, sample_device, log, "bench stream");
  Child c;
  if (!log.empty()) {
    take_stages(log, c);
    std::error_code ec;
    std::filesystem::remove(log, ec);
  }
  c.wall_s = r.wall_s, c.peak_rss = r.peak_rss, c.peak_device = r.peak_device;
  return c;
}

struct Size {
  uint32_t width = 0, height = 0;
};

std::vector<Size> sizes_of(const BenchStreamOptions& o) {
  std::vector<Size> out;
  for (const auto& s : o.sizes) {
    unsigned w = 0, h = 0;
    char end = 0;
    if (std::sscanf(s.c_str(), "%ux%u%c", &w, &h, &end) != 2 || w < 64 || h < 64 || w > 1u << 20 ||
        h > 1u << 20)
      throw Error("--size: expected WIDTHxHEIGHT between 64x64 and 1048576x1048576, got '" + s + "'");
    out.push_back({w, h});
  }
  if (!out.empty()) return out;
  for (double g : o.gpx) {  // "1 Gpx" is 32768^2 = 2^30 pixels, as in 65536^2 = "4 Gpx"
    const uint32_t side = uint32_t(std::lround(std::sqrt(g) * 32768.0 / 16.0)) * 16;
    if (side < 64) throw Error("--gpx " + std::to_string(g) + " is too small (64x64 at least)");
    out.push_back({side, side});
  }
  return out;
}

// The input of one size: made by a child process (`satlab bench stream --generate-only`) unless a file of
// that size is there already. Returns whether it was made now.
bool ensure_input(const std::string& self, const std::string& path, const Size& s) {
  try {
    const auto r = io::open_image_reader(path);
    if (r->header().width == s.width && r->header().height == s.height) return false;
  } catch (const Error&) {
  }
  run_child({self, "bench", "stream", "--generate-only", "--dir",
             std::filesystem::path(path).parent_path().string(), "--size",
             std::to_string(s.width) + "x" + std::to_string(s.height)},
            false);
  return true;
}

std::string input_path(const std::string& dir, const Size& s) {
  return dir + "/stream_" + std::to_string(s.width) + "x" + std::to_string(s.height) + ".tif";
}

int run_bench_stream(const BenchStreamOptions& o) {
  const std::vector<Size> sizes = sizes_of(o);
  if (!std::filesystem::is_directory(o.dir)) throw Error(o.dir + ": --dir is not an existing folder");
  if (o.generate_only) {  // the generator's child (and the libvips script's way to the same files)
    for (const Size& s : sizes) {
      const std::string path = input_path(o.dir, s);
      write_scene(path, s.width, s.height, false);
      std::printf("wrote %s\n", path.c_str());
    }
    return 0;
  }
  if (o.runs < 1) throw Error("--runs must be at least 1");
  const bool gpu = choose_backend(o.backend).gpu;
  const std::string backend = gpu ? "gpu" : "cpu";
  const std::string self = self_path();
  nlohmann::json rows = nlohmann::json::array();
  std::printf("satlab bench stream: %s backend%s, %s filter radius %d, median of %d run%s, files in %s\n",
              backend.c_str(), gpu ? (" on " + gpu::probe().name).c_str() : "", o.filter.c_str(), o.radius,
              o.runs, o.runs == 1 ? "" : "s", o.dir.c_str());
  std::printf("%-12s %7s %9s %8s %11s %11s %9s %7s  %s\n", "size", "Gpx", "wall s", "Gpx/s", "peak RSS",
              "peak dev", "C GB/s", "of C", "busy s: stats read filter write");
  for (const Size& s : sizes) {
    const std::string in = input_path(o.dir, s), out = o.dir + "/stream_" + std::to_string(s.width) + "x" +
                                                       std::to_string(s.height) + "_out.tif";
    const bool made = ensure_input(self, in, s);
    std::vector<std::string> args = {self, "render", "--image", in, "--out", out, "--backend", backend,
                                     "--filter", o.filter, "--compression", "none",
                                     // --tile forces streaming; without a cap of its own, the budget's tiles
                                     "--tile", std::to_string(o.tile ? o.tile : 1u << 20)};
    if (o.filter == "box") args.insert(args.end(), {"--radius", std::to_string(o.radius)});
    if (o.filter == "dof") args.insert(args.end(), {"--max-radius", std::to_string(o.radius)});
    if (!o.dof_mode.empty()) args.insert(args.end(), {"--dof-mode", o.dof_mode});
    if (!o.memory_budget.empty()) args.insert(args.end(), {"--memory-budget", o.memory_budget});
    // C, measured in this run, before the renders (256 MiB each way, median of 20).
    const gpu::HostCopyBandwidth c =
        gpu ? gpu::measure_host_copy(size_t(256) << 20, 20) : gpu::HostCopyBandwidth{};
    std::vector<Child> runs;
    for (int i = 0; i < o.runs; ++i) runs.push_back(run_child(args, gpu, out + ".log"));
    std::sort(runs.begin(), runs.end(), [](const Child& a, const Child& b) { return a.wall_s < b.wall_s; });
    const Child& m = runs[runs.size() / 2];
    uint64_t peak_rss = 0, peak_dev = 0;  // the largest of all runs: memory is a bound, not a typical value
    for (const Child& r : runs)
      peak_rss = std::max(peak_rss, r.peak_rss), peak_dev = std::max(peak_dev, r.peak_device);
    const double px = double(s.width) * double(s.height);
    const double bytes = px * (o.filter == "dof" ? 12.0 : 8.0);
    const double gbps = bytes / m.wall_s * 1e-9;
    const std::string size = std::to_string(s.width) + "x" + std::to_string(s.height);
    char frac[16] = "-", cbuf[16] = "-";
    if (gpu) std::snprintf(frac, sizeof(frac), "%.3f", gbps / c.duplex_gbps);
    if (gpu) std::snprintf(cbuf, sizeof(cbuf), "%.1f", c.duplex_gbps);
    std::printf("%-12s %7.3f %9.2f %8.3f %11s %11s %9s %7s  %.2f %.2f %.2f %.2f\n", size.c_str(), px * 1e-9,
                m.wall_s, px * 1e-9 / m.wall_s, format_bytes(peak_rss).c_str(),
                gpu ? format_bytes(peak_dev).c_str() : "-", cbuf, frac, m.stages[0], m.stages[1], m.stages[2],
                m.stages[3]);
    std::fflush(stdout);
    nlohmann::json row = {{"width", s.width},
                          {"height", s.height},
                          {"gpx", px * 1e-9},
                          {"backend", backend},
                          {"filter", o.filter},
                          {"radius", o.radius},
                          {"runs", o.runs},
                          {"wall_s", m.wall_s},
                          {"gpx_per_s", px * 1e-9 / m.wall_s},
                          {"peak_rss_bytes", peak_rss}};
    // Of the median run: where its time went (render's stage note; -1: none printed).
    row["stage_busy_s"] = {{"statistics", m.stages[0]}, {"read", m.stages[1]}, {"filter", m.stages[2]},
                           {"write", m.stages[3]}, {"tiled_wall", m.stages[4]}};
    row["memory_budget"] =
        o.memory_budget.empty() ? nlohmann::json("default") : nlohmann::json(o.memory_budget);
    if (gpu) {
      row["peak_device_bytes"] = peak_dev;
      row["bus_bytes"] = bytes, row["bus_gbps"] = gbps;
      row["copy_h2d_gbps"] = c.h2d_gbps, row["copy_d2h_gbps"] = c.d2h_gbps,
      row["copy_duplex_gbps"] = c.duplex_gbps;
      row["fraction_of_copy"] = gbps / c.duplex_gbps;
    } else {
      row["peak_device_bytes"] = nullptr, row["fraction_of_copy"] = nullptr;  // no device: not applicable
    }
    rows.push_back(row);
    std::error_code ec;
    std::filesystem::remove(out, ec);  // the result is not kept even with --keep: it is as large as the input
    if (made && !o.keep) std::filesystem::remove(in, ec);
  }
  if (!o.json.empty()) {
    const nlohmann::json doc = {{"device", gpu ? gpu::probe().name : "cpu"},
                                {"git_rev", git_rev()},
                                {"statistic",
                                 "median wall time of runs, each a child process `satlab render`; peak "
                                 "RSS from wait4 (largest of the runs); peak device memory sampled "
                                 "every 2 ms above its level before the run"},
                                {"rows", rows}};
    std::ofstream f(o.json);
    if (!f) throw Error("cannot write " + o.json);
    f << doc.dump(1) << "\n";
    if (!f) throw Error("cannot write " + o.json);
    std::printf("wrote %s\n", o.json.c_str());
  }
  return 0;
}

}  // namespace

void add_bench_stream_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchStreamOptions>();
  CLI::App* sub =
      command_group(app, "bench", "Benchmarks")
          .add_subcommand("stream",
                          "The whole streaming render of generated 0.25-4 Gpx images: wall, "
                          "Gpx/s, peak RSS and device memory, fraction of the host copy bandwidth");
  sub->option_defaults()->always_capture_default();
  sub->add_option("--gpx", o->gpx, "Image sizes in Gpx (1 Gpx: 32768x32768)")->check(CLI::PositiveNumber);
  sub->add_option("--size", o->sizes, "Image sizes WIDTHxHEIGHT (instead of --gpx)");
  sub->add_option("--dir", o->dir, "Folder for the generated input and the result (removed after each size)");
  sub->add_option("--backend", o->backend, "Pipeline backend")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub->add_option("--filter", o->filter, "Filter")->check(CLI::IsMember({"box", "dof"}));
  sub->add_option("--radius", o->radius, "Box radius, or the dof filter's max radius")
      ->check(CLI::Range(1, 255));
  sub->add_option("--dof-mode", o->dof_mode, "The dof filter's mode (default: render's)");
  sub->add_option("--memory-budget", o->memory_budget, "Passed to render (default: render's default)")
      ->check(CLI::Validator([](std::string& v) { return memory_size_error(v); }, "SIZE"));
  sub->add_option("--tile", o->tile,
                  "Passed to render: the largest tile side (default: as the budget allows)")
      ->check(CLI::Range(64, 1 << 20));
  sub->add_option("--runs", o->runs, "Renders per size; the median wall time is reported")
      ->check(CLI::Range(1, 100));
  sub->add_flag("--keep", o->keep, "Keep the generated inputs (and use them again in a later run)");
  sub->add_flag("--generate-only", o->generate_only, "Only write the inputs (DIR/stream_WxH.tif) and exit");
  sub->add_option("--json", o->json, "Also write the rows as JSON to this file");
  sub->callback([o, &action] { action = [o] { return run_bench_stream(*o); }; });
}

}  // namespace satlab::cli
