// satlab verify: every registered reduction, scan, SAT, compaction, sort, DoF, refine and select variant
// against the CPU reference on fresh random inputs of awkward sizes; one line per variant; exit 1 on any mismatch or on
// a variant no case checked.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "core/error.hpp"
#include "gpu/device.hpp"
#include "gpu/verify.hpp"

namespace satlab::cli {
namespace {

struct Options {
  uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  std::vector<std::string> families;
};

int run_verify(const Options& o) {
  if (!gpu::probe().available) throw Error("verify needs a CUDA device: " + gpu::probe().reason);
  const uint64_t seed = o.seed;
  std::vector<Family> families;
  for (const std::string& f : o.families)
    for (Family k : {Family::Reduce, Family::Scan, Family::Sat, Family::Compact, Family::Sort, Family::Dof,
                      Family::Refine, Family::Select, Family::Temporal})
      if (f == to_string(k)) families.push_back(k);
  std::printf("satlab verify on %s, seed %llu\n", gpu::probe().name.c_str(), (unsigned long long)seed);
  int bad = 0, total = 0, skipped = 0;
  gpu::verify_variants(seed, [&](const gpu::VerifyLine& l) {
    ++total;
    bad += !l.ok;
    skipped += l.ok && l.skipped;
    std::printf("%-4s %-8s %-18s %3d cases%s%s\n",
                !l.ok       ? "FAIL"
                : l.skipped ? "skip"
                            : "ok",
                l.family.c_str(), l.variant.c_str(), l.cases, l.detail.empty() ? "" : "  ", l.detail.c_str());
    std::fflush(stdout);
  }, families);
  if (bad)
    throw Error("verify: " + std::to_string(bad) + " of " + std::to_string(total) +
                " variants mismatch or were not checked");
  if (skipped)
    std::printf("all %d checked variants match the CPU reference; %d skipped (they refused every input)\n",
                total - skipped, skipped);
  else
    std::printf("all %d variants match the CPU reference\n", total);
  return 0;
}

}  // namespace

void add_verify_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "verify",
      "Check every GPU reduction, scan, SAT, compaction, sort, DoF, refine, select and temporal variant against the CPU "
      "reference");
  sub->add_option("--seed", o->seed, "Random seed (default: fresh each run)");
  sub->add_option("--families", o->families,
                  "Only these families: reduce, scan, sat, compact, sort, dof, refine, select, temporal (default all)")
      ->check(CLI::IsMember({"reduce", "scan", "sat", "compact", "sort", "dof", "refine", "select", "temporal"}));
  sub->callback([o, &action] { action = [o] { return run_verify(*o); }; });
}

}  // namespace satlab::cli
