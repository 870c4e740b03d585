// satlab bench cpu: the CPU backend's SAT and blurs, and the CPU's own reduction and scan variants
// (core/primitives_cpu.hpp), against memcpy measured in the same run (C), in the same units as the GPU
// benches: ms, GB/s on each stage's minimum bytes, and the fraction of C.
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
#include "core/primitives_cpu.hpp"
#include "core/reference.hpp"

namespace satlab::cli {
namespace {

struct BenchCpuOptions {
  std::vector<std::string> families = {"sat", "reduce", "scan"};
  std::vector<int> sizes = {4096};
  int log2n = 28;  // the reductions' and scans' elements: 1 GiB in, 1 GiB out
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

// The reductions' or scans' table, Harris-style (step and cumulative speedups in registry order); false
// when a variant gave a wrong answer.
bool bench_primitive_table(Family family, const BenchCpuOptions& o, int threads, nlohmann::json& rows) {
  const size_t n = size_t(1) << o.log2n;
  const CpuPrimitiveTable t = bench_cpu_primitives(family, n, threads, 2, o.reps);
  std::printf("\n%s, 2^%d int32 (uint32 the same bits), %d threads, %s; %s: C = %.1f GB/s (threaded copy)\n",
              to_string(family), o.log2n, t.threads, t.simd.c_str(),
              cpu_cache_note(t.rows.empty() ? 0 : t.rows.front().bytes).c_str(), t.copy_gbps);
  std::printf("%-28s %10s %8s %5s %7s %7s %s\n", "variant", "ms", "GB/s", "of C", "step", "cumul", "ok");
  bool all_correct = true;
  double first = 0, prev = 0;
  for (const CpuPrimitiveRow& r : t.rows) {
    nlohmann::json row = {{"family", std::string("cpu.") + to_string(family)},
                          {"variant", r.variant},
                          {"n", n},
                          {"threads", t.threads},
                          {"simd", t.simd},
                          {"copy_gbps", t.copy_gbps}};
    if (r.median_ms <= 0) {
      std::printf("%-28s refused: %s\n", r.variant.c_str(), r.note.c_str());
      row["refused"] = r.note;
      rows.push_back(row);
      continue;
    }
    if (first == 0) first = r.median_ms;
    const double frac = t.copy_gbps > 0 ? r.gbps / t.copy_gbps : 0;
    std::printf("%-28s %10.3f %8.2f %5.2f %6.2fx %6.2fx %s\n", r.variant.c_str(), r.median_ms, r.gbps, frac,
                prev > 0 ? prev / r.median_ms : 1.0, first / r.median_ms, r.correct ? "yes" : "NO");
    if (!r.correct) std::printf("  %s: %s\n", r.variant.c_str(), r.note.c_str());
    all_correct = all_correct && r.correct;
    row.update({{"ms", r.median_ms},
                {"bytes", r.bytes},
                {"gbps", r.gbps},
                {"fraction_of_copy", frac},
                {"correct", r.correct}});
    rows.push_back(row);
    prev = r.median_ms;
  }
  return all_correct;
}

int run_bench_cpu(const BenchCpuOptions& o) {
  const int threads = o.threads <= 0 ? default_threads() : o.threads;
  nlohmann::json rows = nlohmann::json::array();
  const auto wanted = [&](const char* f) {
    return std::find(o.families.begin(), o.families.end(), f) != o.families.end();
  };
  bool all_correct = true;
  if (wanted("sat")) {
    std::printf("%-12s %-10s %9s %9s %7s   (best of %d runs, %d threads)\n", "size", "stage", "ms", "GB/s",
                "of C", o.reps, threads);
    for (int n : o.sizes) {
      const size_t px = size_t(n) * size_t(n);
      ImageRGBA8 img(n, n);
      std::mt19937 rng(1);
      for (auto& v : img.data) v = uint8_t(rng());
      std::vector<uint32_t> sat(px * 4);
      ImageRGBA8 out(n, n);  // reused: the blurs are timed without page faults on a fresh buffer
      // C: a threaded copy as large as the SAT (the faster of memcpy and streaming stores), counting its
      // read and its write.
      const size_t copy_bytes = px * 16;
      const double c_gbs = cpu_copy_gbps(copy_bytes, threads, o.reps);
      const double copy_ms = 2.0 * double(copy_bytes) / c_gbs * 1e-6;
      ImageF coc(n, n, 1);
      for (auto& v : coc.data) v = float(rng() % 33) - 16.f;
      struct Stage {
        const char* name;
        double bytes, ms;
      };
      std::vector<Stage> stages = {
          {"copy", 2.0 * double(copy_bytes), copy_ms},
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
  }
  if (wanted("reduce")) all_correct = bench_primitive_table(Family::Reduce, o, threads, rows) && all_correct;
  if (wanted("scan")) all_correct = bench_primitive_table(Family::Scan, o, threads, rows) && all_correct;
  if (!o.json.empty()) {
    nlohmann::json j;
    j["device"] = "cpu";
    j["runs"] = o.reps;
    j["statistic"] =
        "SAT and blurs: best of runs (steady_clock); reductions and scans: median of runs after 2 warm-ups; "
        "fraction_of_copy against C, the faster median of a threaded memcpy and a threaded copy with "
        "non-temporal stores of the output's size";
    j["rows"] = rows;
    std::ofstream f(o.json);
    f << j.dump(2) << "\n";
    if (!f) throw Error("cannot write " + o.json);
    std::printf("wrote %s\n", o.json.c_str());
  }
  if (!all_correct) throw Error("a CPU variant differs from the reference (its row says where)");
  return 0;
}

}  // namespace

void add_bench_cpu_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchCpuOptions>();
  CLI::App& bench = command_group(app, "bench", "Benchmarks (GB/s on minimum bytes, fraction of memcpy C)");
  CLI::App* sub = bench.add_subcommand("cpu",
                                       "CPU: the backend's SAT and blurs of square RGBA8 images, the CPU's "
                                       "reduction and scan variants, vs memcpy");
  sub->option_defaults()->always_capture_default();  // --help shows every default
  sub->add_option("--family", o->families, "What to measure (repeatable): sat (SAT and blurs), reduce, scan")
      ->check(CLI::IsMember({"sat", "reduce", "scan"}));
  sub->add_option("--log2n", o->log2n, "Elements of the reductions and scans, 2^N")->check(CLI::Range(1, 30));
  sub->add_option("--size", o->sizes, "Square image sizes (repeatable)")->check(CLI::Range(1, 16384));
  sub->add_option("--threads", o->threads, "Worker threads (default: one per hardware thread)");
  sub->add_option("--reps", o->reps, "Runs per measurement; the best is reported")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--json", o->json, "Also write the rows as JSON to this file");
  sub->callback([o, &action] { action = [o] { return run_bench_cpu(*o); }; });
}

}  // namespace satlab::cli
