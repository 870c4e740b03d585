// What every SAT builder's registry entry shares: the minimum-bytes model and the refusal of input types
// the builder does not take (derived from its dtypes, so the two cannot disagree); and the list of the
// builders' tuning policies for the bench.
#include <algorithm>
#include <string>

#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_host.hpp"

namespace satlab::gpu {

double sat_min_bytes(size_t n, DType t) {
  switch (t) {
    case DType::U8: return double(n) * 5.0;
    case DType::RGBA8: return double(n) * 20.0;
    case DType::RGBA16:
      return double(n) * 24.0;
    case DType::F32: return double(n) * 8.0;
    default: return double(n) * 8.0;
  }
}

Variant sat_builder_variant(std::string name, std::string label, std::string source, std::vector<DType> dtypes,
                            void (*build)(const SatArgs&)) {
  Variant v;
  v.name = std::move(name);
  v.family = Family::Sat;
  v.label = std::move(label);
  v.source = std::move(source);
  v.dtypes = std::move(dtypes);
  v.bytes = sat_min_bytes;
  const bool with_float = std::find(v.dtypes.begin(), v.dtypes.end(), DType::F32) != v.dtypes.end();
  v.refuses = [types = v.dtypes, with_float](size_t, DType t) -> std::string {
    if (std::find(types.begin(), types.end(), t) != types.end()) return "";
    return with_float ? "8-bit or float input only" : "8-bit input only (16-bit: sat_tiled)";
  };
  v.sat = build;
  return v;
}

std::vector<Variant> sat_policy_variants() {
  std::vector<Variant> out;
  for (auto* list : {sat_tiled_policy_variants, sat_rows_columns_policy_variants, sat_single_pass_policy_variants,
                     sat_lookback_2d_policy_variants})
    for (Variant& v : list()) out.push_back(std::move(v));
  return out;
}

}  // namespace satlab::gpu
