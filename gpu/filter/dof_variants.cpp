// The depth-of-field modes as registry variants (family dof): each core/dof_modes.hpp entry bound to its GPU
// entry point by its id. Bytes: the entry's DRAM model (DofMode::dram_bytes) at this device's L2 size.
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "gpu/device.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

struct GpuEntry {
  DofModeId id;
  void (*dof)(const DofMode&, const DofArgs&);
};

constexpr GpuEntry kGpuEntries[] = {
    {DofModeId::GatherBox, dof_gather_box}, {DofModeId::GatherShape, dof_shaped},
    {DofModeId::GatherLinear, dof_shaped},  {DofModeId::Layered, dof_shaped},
    {DofModeId::Spread, dof_spread},
};
static_assert(sizeof(kGpuEntries) / sizeof(kGpuEntries[0]) == size_t(kDofModes), "a GPU entry per DoF mode");

}  // namespace

std::vector<Variant> dof_variants() {
  std::vector<Variant> r;
  for (const DofMode& m : dof_modes()) {
    const GpuEntry* e = nullptr;
    for (const GpuEntry& g : kGpuEntries)
      if (g.id == m.id) e = &g;
    if (!e) throw Error(std::string("DoF mode ") + m.name + " has no GPU entry point");
    Variant v;
    v.name = m.name;
    v.family = Family::Dof;
    v.label = m.label;
    v.source = m.source;
    v.dtypes = {DType::RGBA8};
    const DofMode* mode = &m;
    v.bytes = [mode](size_t n, DType) { return mode->dram_bytes(int(n), 1, Params{}, probe().l2_bytes); };
    v.refuses = [](size_t, DType t) -> std::string { return t == DType::RGBA8 ? "" : "RGBA8 input only"; };
    v.dof = [mode, f = e->dof](const DofArgs& a) { f(*mode, a); };
    r.push_back(std::move(v));
  }
  return r;
}

const Variant& dof_variant(const DofMode& mode) {
  for (const Variant& v : variants())
    if (v.family == Family::Dof && v.name == mode.name) return v;
  throw Error(std::string("the GPU registry has no dof mode '") + mode.name + "'");
}

}  // namespace satlab::gpu
