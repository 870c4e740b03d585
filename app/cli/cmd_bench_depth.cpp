// satlab bench depth: the GPU guided filter (gpu/depth/guided_filter) at 3840x2160 (or --sizes), colour
// and gray, at radii 8 and 32 (or --radii): the cost should not depend on the radius. Medians of
// CUDA-event-timed runs after warm-up, whole runs and per stage. --cpu adds the CPU reference (wall time).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "core/error.hpp"
#include "core/guided_filter.hpp"
#include "gpu/depth/guided_filter.hpp"
#include "gpu/device.hpp"

namespace satlab::cli {
namespace {

struct BenchDepthOptions {
  std::string json, sat;
  std::vector<std::string> sizes = {"3840x2160"};
  std::vector<int> radii = {8, 32};
  float eps = 1e-3f;
  int runs = 20, warmup = 5;
  bool cpu = false;
};

int run_bench_depth(const BenchDepthOptions& o) {
  const auto& dev = gpu::probe();
  if (!dev.available && !o.cpu) throw Error("bench depth needs a CUDA device (or --cpu): " + dev.reason);
  nlohmann::json rows = nlohmann::json::array();
  auto row = [&](const std::string& name, const std::string& backend, int w, int h, int r, double ms,
                 const std::string& note) {
    std::printf("%-34s %-4s %5dx%-6d r=%-4d %9.4f ms %8.1f Mpx/s  %s\n", name.c_str(), backend.c_str(), w, h,
                r, ms, double(w) * h / (ms * 1e-3) / 1e6, note.c_str());
    std::fflush(stdout);
    rows.push_back({{"family", "depth"},
                    {"variant", name},
                    {"backend", backend},
                    {"width", w},
                    {"height", h},
                    {"radius", r},
                    {"eps", o.eps},
                    {"ms", ms},
                    {"median_ms", ms},
                    {"note", note}});
  };
  if (dev.available) std::printf("device %s\n", dev.name.c_str());
  for (const std::string& size : o.sizes) {
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0) throw Error("bad size " + size);
    for (bool gray : {false, true})
      for (int r : o.radii) {
        GuidedParams g;
        g.radius = r, g.eps = o.eps, g.gray = gray;
        const std::string name = std::string("guided.") + (gray ? "gray" : "colour");
        if (dev.available) {
          const gpu::GuidedTiming t = gpu::time_guided(w, h, g, o.warmup, o.runs, o.sat);
          row(name, "gpu", w, h, r, t.median_ms, "SAT builder " + t.builder + ", guide float RGB");
          for (const auto& [stage, ms] : t.stages) row(name + " / " + stage, "gpu", w, h, r, ms, "stage");
        }
        if (o.cpu) {
          ImageF guide(w, h, 3), p(w, h, 1);
          std::mt19937 rng(5);
          std::uniform_real_distribution<float> u(0.f, 1.f);
          for (float& v : guide.data) v = u(rng);
          for (float& v : p.data) v = u(rng);
          std::vector<double> ms;
          for (int i = 0; i < std::max(1, std::min(o.runs, 3)); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            guided_filter(guide, p, g);
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
          }
          std::sort(ms.begin(), ms.end());
          row(name, "cpu", w, h, r, ms[ms.size() / 2],
              "reference (float64 SATs), wall time, median of " + std::to_string(ms.size()));
        }
      }
  }
  if (!o.json.empty()) {
    nlohmann::json j;
    j["device"] = dev.available ? dev.name : "none";
    j["git_rev"] = git_rev();
    j["runs"] = o.runs;
    j["statistic"] = "median of CUDA-event-timed runs after warm-up (gpu); wall time (cpu)";
    j["rows"] = rows;
    std::ofstream f(o.json);
    f << j.dump(2) << "\n";
    if (!f) throw Error("cannot write " + o.json);
    std::printf("wrote %s\n", o.json.c_str());
  }
  return 0;
}

}  // namespace

void add_bench_depth_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchDepthOptions>();
  CLI::App& bench = command_group(app, "bench", "Benchmarks (medians, against copy bandwidth C)");
  CLI::App* sub = bench.add_subcommand("depth", "The guided filter (GPU; --cpu: the CPU reference too)");
  sub->add_option("--json", o->json, "Also write the rows as JSON to this file");
  sub->add_option("--sizes", o->sizes, "Sizes WIDTHxHEIGHT (default 3840x2160)");
  sub->add_option("--radii", o->radii, "Guided filter radii (default 8 32)")
      ->check(CLI::Range(0, kMaxGuidedRadius));
  sub->add_option("--eps", o->eps, "Guided filter eps")->check(CLI::PositiveNumber);
  sub->add_option("--sat-builder", o->sat, "SAT builder by registry name (default sat_lookback_2d)");
  sub->add_option("--runs", o->runs, "Timed runs")->check(CLI::Range(1, 10000));
  sub->add_option("--warmup", o->warmup, "Untimed runs first")->check(CLI::Range(0, 10000));
  sub->add_flag("--cpu", o->cpu, "Also time the CPU reference");
  sub->callback([o, &action] { action = [o] { return run_bench_depth(*o); }; });
}

}  // namespace satlab::cli
