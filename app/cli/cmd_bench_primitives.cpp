// satlab bench primitives: every reduction and scan variant (and, with --families, every compaction and
// sort) over sizes 2^16 .. 2^28 (and 2^22, Harris's size), against the copy bandwidth C and a read-only bandwidth measured in the same run at each size.
// Medians of >= 20 CUDA-event-timed runs after warm-up, inputs rotated beyond L2; GB/s on each
// variant's minimum bytes; step and cumulative speedups in registry (Harris's table) order.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.hpp"
#include "app/version.hpp"
#include "core/error.hpp"
#include "gpu/bench/primitives.hpp"
#include "gpu/device.hpp"

namespace satlab::cli {
namespace {

struct Options {
  std::string json;
  std::vector<std::string> sizes = {"2^16", "2^18", "2^20", "2^22", "2^24", "2^26", "2^28"};
  std::vector<std::string> families = {"reduce", "scan"};
  std::vector<std::string> dtypes = {"i32"};
  std::vector<std::string> only;
  std::vector<long> first_poll_ns;  // --first-poll-ns: a sweep of the look-back's first-poll pause
  int runs = 20, warmup = 5;
};

size_t parse_n(const std::string& s) {
  char* end = nullptr;
  size_t n = 0;
  if (s.rfind("2^", 0) == 0) {
    const long e = std::strtol(s.c_str() + 2, &end, 10);
    if (*end == 0 && e >= 0 && e <= 31) n = size_t(1) << e;
    if (*end == '+' || *end == '-') n = (size_t(1) << e) + std::strtol(end, &end, 10);
  } else {
    n = std::strtoull(s.c_str(), &end, 10);
  }
  if (!end || *end != 0 || n == 0) throw Error("--sizes: expected N or 2^K[+-M], got '" + s + "'");
  return n;
}

DType parse_dtype(const std::string& s) {
  if (s == "i32") return DType::I32;
  if (s == "u32") return DType::U32;
  if (s == "f32") return DType::F32;
  throw Error("--dtypes: expected i32, u32 or f32, got '" + s + "'");
}


int run_bench(const Options& o) {
  const auto& dev = gpu::probe();
  if (!dev.available) throw Error("bench primitives needs a CUDA device: " + dev.reason);
  if (o.runs < 20) throw Error("--runs must be at least 20 (medians of >= 20 timed runs)");
  nlohmann::json rows = nlohmann::json::array();
  gpu::Bandwidth top;
  size_t top_n = 0;
  std::printf("satlab bench primitives on %s (%d SMs, L2 %zu MB), median of %d runs after %d warm-up\n",
              dev.name.c_str(), dev.sm_count, dev.l2_bytes >> 20, o.runs, o.warmup);
  for (const std::string& size : o.sizes) {
    const size_t n = parse_n(size);
    const gpu::Bandwidth bw = gpu::measure_bandwidth(n * 4, o.runs);
    if (n >= top_n) top = bw, top_n = n;
    for (const char* base : {"copy", "read"}) {
      const double g = base[0] == 'c' ? bw.copy_gbps : bw.read_gbps;
      rows.push_back({{"family", "baseline"}, {"variant", base}, {"dtype", "i32"}, {"n", n}, {"median_ms", nullptr},
                      {"bytes", (base[0] == 'c' ? 2.0 : 1.0) * double(n) * 4}, {"gbps", g},
                      {"fraction_of_copy", g / bw.copy_gbps}, {"correct", nullptr}});  // nothing to check
    }
    // One pass with each variant's tuned first-poll pause, or one per --first-poll-ns value (rows
    // VARIANT@pollNS: the pause forced at every size, gpu::force_first_poll_ns).
    std::vector<std::pair<long, std::string>> passes;  // (pause, family)
    for (const long poll : o.first_poll_ns.empty() ? std::vector<long>{-1} : o.first_poll_ns)
      for (const std::string& fam : o.families) passes.emplace_back(poll, fam);
    for (const auto& [poll, fam] : passes) {
      gpu::force_first_poll_ns(poll);
      const std::string suffix = poll >= 0 ? "@poll" + std::to_string(poll) : "";
      // Compactions take int32 and sorts uint32 keys whatever --dtypes says.
      const std::vector<std::string> dtypes = fam == "compact" ? std::vector<std::string>{"i32"}
                                              : fam == "sort"  ? std::vector<std::string>{"u32"}
                                                               : o.dtypes;
      for (const std::string& dt : dtypes) {
        gpu::PrimitiveBenchOptions b;
        b.family = fam == "scan"      ? Family::Scan
                   : fam == "reduce"  ? Family::Reduce
                   : fam == "compact" ? Family::Compact
                   : fam == "sort"    ? Family::Sort
                                      : throw Error("--families: reduce, scan, compact or sort");
        b.dtype = parse_dtype(dt);
        b.n = n;
        b.runs = o.runs;
        b.warmup = o.warmup;
        b.only = o.only;
        std::printf("\n%s %s n=%zu (%s)%s   C = %.0f GB/s, read = %.0f GB/s\n", fam.c_str(), dt.c_str(), n,
                    size.c_str(),
                    fam == "compact" ? ", keep x >= 800 of [-1000, 1000]: 10%"
                    : fam == "sort"  ? ", key-value pairs, GB/s on 16 B a pair"
                                     : "",
                    bw.copy_gbps, bw.read_gbps);
        std::printf("  %-18s %10s %9s %7s %7s %7s  %s\n", "variant", "ms", "GB/s", "of C", "step", "cumul",
                    "correct");
        double first = 0, prev = 0;
        gpu::bench_primitives(b, [&](const gpu::PrimitiveResult& r) {
          const std::string variant = r.variant + suffix;
          nlohmann::json j = {{"family", r.family}, {"variant", variant}, {"dtype", r.dtype}, {"n", r.n},
                              {"bytes", r.bytes}, {"correct", r.correct}};
          if (r.median_ms <= 0) {
            std::printf("  %-18s %10s  (%s)\n", variant.c_str(), "-", r.note.c_str());
            j["median_ms"] = nullptr, j["gbps"] = nullptr, j["fraction_of_copy"] = nullptr, j["note"] = r.note;
            j["correct"] = nullptr;  // refused: not run, so neither right nor wrong
            rows.push_back(j);
            return;
          }
          if (first == 0) first = r.median_ms;
          const double step = prev > 0 ? prev / r.median_ms : 1.0, cumul = first / r.median_ms;
          prev = r.median_ms;
          std::printf("  %-18s %10.4f %9.1f %7.3f %6.2fx %6.2fx  %s\n", variant.c_str(), r.median_ms, r.gbps,
                      r.gbps / bw.copy_gbps, step, cumul, r.correct ? "yes" : ("NO: " + r.note).c_str());
          std::fflush(stdout);
          j["median_ms"] = r.median_ms, j["gbps"] = r.gbps, j["fraction_of_copy"] = r.gbps / bw.copy_gbps;
          j["step_speedup"] = step, j["cumulative_speedup"] = cumul;
          if (!r.note.empty()) j["note"] = r.note;
          rows.push_back(j);
        });
      }
    }
  }
  gpu::force_first_poll_ns(-1);
  bool all_correct = true;
  for (const auto& r : rows)  // null: a baseline or a refused variant, which nothing checked
    all_correct = all_correct && (r["correct"].is_null() || r["correct"].get<bool>());
  if (!o.json.empty()) {
    const nlohmann::json doc = {{"device", dev.name}, {"git_rev", git_rev()}, {"copy_gbps", top.copy_gbps},
                                {"read_gbps", top.read_gbps}, {"bandwidth_n", top_n}, {"runs", o.runs},
                                {"warmup", o.warmup}, {"rows", rows}};
    std::ofstream f(o.json);
    if (!f) throw Error("cannot write " + o.json);
    f << doc.dump(1) << "\n";
    if (!f) throw Error("cannot write " + o.json);
    std::printf("\nwrote %s\n", o.json.c_str());
  }
  if (!all_correct) throw Error("bench primitives: some variants gave wrong results (see 'NO' above)");
  return 0;
}

}  // namespace

std::string git_rev() {
  if (const char* e = std::getenv("SATLAB_GIT_REV")) return e;
  return kGitRevision;  // of the source tree this binary was built from, not of the working folder
}

void add_bench_primitives_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<Options>();
  CLI::App* sub = command_group(app, "bench", "Benchmarks")
                      .add_subcommand("primitives",
                                      "Time every reduction and scan (compaction, sort) variant against copy bandwidth");
  sub->add_option("--json", o->json, "Write the results as JSON to this file");
  sub->add_option("--sizes", o->sizes, "Element counts: N or 2^K[+-M] (default 2^16 .. 2^28 by 4x)");
  sub->add_option("--families", o->families, "reduce, scan, compact, sort (default reduce scan)")
      ->check(CLI::IsMember({"reduce", "scan", "compact", "sort"}));
  sub->add_option("--dtypes", o->dtypes, "Element types: i32, u32, f32 (default i32)");
  sub->add_option("--only", o->only, "Only these variant names");
  sub->add_option("--first-poll-ns", o->first_poll_ns,
                  "Sweep: the look-back scans' and compaction's pause before their first look-back read forced "
                  "to each of these nanoseconds at every size (rows VARIANT@pollNS; default: each variant's "
                  "tuned pause)")
      ->check(CLI::Range(0L, 100000L));
  sub->add_option("--runs", o->runs, "Timed runs per measurement (>= 20)");
  sub->add_option("--warmup", o->warmup, "Untimed warm-up runs")->check(CLI::NonNegativeNumber);
  sub->callback([o, &action] { action = [o] { return run_bench(*o); }; });
}

}  // namespace satlab::cli
