// satlab bench cpu: the CPU backend's SAT and blurs against memcpy measured in the same run (C), in
// the same units as the GPU benches: ms, GB/s on each stage's minimum bytes, and the fraction of C.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab::cli {
namespace {

struct BenchCpuOptions {
  std::vector<int> sizes = {4096};
  int threads = 0;
  int reps = 5;
  std::string json;  // also write the rows here
};

// Best of `reps` runs, in ms: the least disturbed by other processes.
template <typename F>
double best_ms(int reps, F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

int run_bench_cpu(const BenchCpuOptions& o) {
  const int threads = o.threads <= 0 ? default_threads() : o.threads;
  nlohmann::json rows = nlohmann::json::array();
  std::printf("%-12s %-10s %9s %9s %7s   (best of %d runs, %d threads)\n", "size", "stage", "ms", "GB/s",
              "of C", o.reps, threads);
  for (int n : o.sizes) {
    const size_t px = size_t(n) * size_t(n);
    ImageRGBA8 img(n, n);
    std::mt19937 rng(1);
    for (auto& v : img.data) v = uint8_t(rng());
    std::vector<uint32_t> sat(px * 4);
    ImageRGBA8 out(n, n);  // reused: the blurs are timed without page faults on a fresh buffer
    // C: a threaded memcpy as large as the SAT, counting its read and its write.
    std::vector<uint8_t> src(px * 16, 1), dst(px * 16);
    const double copy_ms = best_ms(o.reps, [&] {
      parallel_for(
          0, threads,
          [&](long b, long e) {
            for (long t = b; t < e; ++t) {
              const size_t lo = src.size() * size_t(t) / size_t(threads),
                           hi = src.size() * size_t(t + 1) / size_t(threads);
              std::memcpy(dst.data() + lo, src.data() + lo, hi - lo);
            }
          },
          threads);
    });
    const double c_gbs = 2.0 * double(src.size()) / copy_ms * 1e-6;
    ImageF coc(n, n, 1);
    for (auto& v : coc.data) v = float(rng() % 33) - 16.f;
    struct Stage {
      const char* name;
      double bytes, ms;
    };
    std::vector<Stage> stages = {
        {"memcpy", 2.0 * double(src.size()), copy_ms},
        {"sat", 20.0 * double(px), best_ms(o.reps, [&] { sat_rgba8(img, sat, threads); })},
        {"box_blur", 20.0 * double(px), best_ms(o.reps, [&] { box_blur(img, sat, 8, out, threads); })},
        {"dof_blur", 24.0 * double(px), best_ms(o.reps, [&] { dof_blur(img, sat, coc, out, threads); })},
    };
    for (const auto& s : stages) {
      const double gbs = s.bytes / s.ms * 1e-6;
      const std::string size = std::to_string(n) + "x" + std::to_string(n);
      rows.push_back({{"family", "cpu"},
                      {"variant", s.name},
                      {"width", n},
                      {"height", n},
                      {"threads", threads},
                      {"ms", s.ms},
                      {"bytes", s.bytes},
                      {"gbps", gbs},
                      {"fraction_of_copy", gbs / c_gbs}});
      std::printf("%-12s %-10s %9.2f %9.2f %7.2f\n", size.c_str(), s.name, s.ms, gbs, gbs / c_gbs);
    }
  }
  if (!o.json.empty()) {
    nlohmann::json j;
    j["device"] = "cpu";
    j["runs"] = o.reps;
    j["statistic"] =
        "best of runs (steady_clock), fraction_of_copy against a threaded memcpy of the SAT's size";
    j["rows"] = rows;
    std::ofstream f(o.json);
    f << j.dump(2) << "\n";
    if (!f) throw Error("cannot write " + o.json);
    std::printf("wrote %s\n", o.json.c_str());
  }
  return 0;
}

}  // namespace

void add_bench_cpu_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchCpuOptions>();
  CLI::App& bench = command_group(app, "bench", "Benchmarks (GB/s on minimum bytes, fraction of memcpy C)");
  CLI::App* sub = bench.add_subcommand("cpu", "CPU backend: SAT and blurs of square RGBA8 images vs memcpy");
  sub->option_defaults()->always_capture_default();  // --help shows every default
  sub->add_option("--size", o->sizes, "Square image sizes (repeatable)")->check(CLI::Range(1, 16384));
  sub->add_option("--threads", o->threads, "Worker threads (default: one per hardware thread)");
  sub->add_option("--reps", o->reps, "Runs per measurement; the best is reported")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--json", o->json, "Also write the rows as JSON to this file");
  sub->callback([o, &action] { action = [o] { return run_bench_cpu(*o); }; });
}

}  // namespace satlab::cli
