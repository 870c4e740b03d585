// satlab variants [--json]: the GPU variant registry (name, family, label, element types, source), then
// the CPU's own reductions and scans (core/primitives_cpu.hpp).
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/commands.hpp"
#include "core/primitives_cpu.hpp"
#include "gpu/device.hpp"

namespace satlab::cli {
namespace {

int list_variants(bool json) {
  const auto& vars = gpu::variants();
  if (json) {
    nlohmann::json a = nlohmann::json::array();
    for (const Variant& v : vars) {
      nlohmann::json types = nlohmann::json::array();
      for (DType t : v.dtypes) types.push_back(to_string(t));
      a.push_back({{"name", v.name}, {"family", to_string(v.family)}, {"label", v.label}, {"source", v.source},
                   {"dtypes", types}, {"machine", "gpu"}});
    }
    for (const CpuVariant& v : cpu_variants())
      a.push_back({{"name", v.name}, {"family", to_string(v.family)}, {"label", v.label}, {"source", v.source},
                   {"dtypes", {"int32", "uint32"}}, {"machine", "cpu"}, {"refuses", v.refuses()}});
    std::printf("%s\n", a.dump(1).c_str());
  } else {
    for (const Variant& v : vars)
      std::printf("%-7s %-22s %-52s %s\n", to_string(v.family), v.name.c_str(), v.label.c_str(), v.source.c_str());
    for (const CpuVariant& v : cpu_variants())
      std::printf("%-7s %-22s %-52s %s%s\n", to_string(v.family), v.name.c_str(), v.label.c_str(), v.source.c_str(),
                  v.refuses().empty() ? "" : (" (not here: " + v.refuses() + ")").c_str());
  }
  if (vars.empty()) std::fprintf(stderr, "satlab: no GPU variants in this build: %s\n", gpu::probe().reason.c_str());
  return 0;
}

}  // namespace

void add_variants_command(CLI::App& app, Action& action) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("variants", "List the registered variants (the GPU's, then the CPU's)");
  sub->add_flag("--json", *json, "As JSON");
  sub->callback([json, &action] { action = [json] { return list_variants(*json); }; });
}

}  // namespace satlab::cli
