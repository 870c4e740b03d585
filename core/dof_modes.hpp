// The depth-of-field modes: one registry that the CLI (--dof-mode), the Filter panel, `satlab quality`,
// `satlab variants` and both backends read. An entry carries its capabilities, its CPU entry point (here in
// core/) and its bytes model; the GPU registry (gpu/filter/dof_variants.cpp) binds the GPU entry point to
// the same entry by its id. A pipeline resolves Params::dof_mode once, in set_params, and keeps the pointer:
// no code outside the registries compares a mode's name.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

struct DepthHistogram;  // core/frame_stats.hpp
struct LayerSums;       // core/frame_stats.hpp
struct DofMode;

// The modes' ids, in the registry's order (dof_modes()[int(id)]).
enum class DofModeId { GatherBox, GatherShape, GatherLinear, Layered, Spread };
constexpr int kDofModes = 5;

// What a mode keeps on the CPU from frame to frame (allocations only: every frame computes everything).
struct DofCpuWorkspace {
  std::vector<uint32_t> sat;  // gather_box's SAT of the frame's input
};

// One frame of a mode on the CPU: image (the gather's input) and signed CoC in, result out.
struct DofCpuArgs {
  const ImageRGBA8* image = nullptr;
  const ImageF* coc = nullptr;
  const Params* params = nullptr;
  ImageRGBA8* out = nullptr;
  int threads = 0;
  // The histogram of the depth the CoC map came from: the occlusion-aware modes' layer edges
  // (frame_layers); nullptr: fixed edges.
  const DepthHistogram* depth = nullptr;
  // The whole image's CoC sums per layer, for the layered mode's layer means where the frame is a tile of
  // it (core/tiled.hpp); nullptr: the frame's own.
  const LayerSums* layer_sums = nullptr;
  // Optional: called as the work moves to each phase, with the GPU entry's phase names.
  std::function<void(const char* phase)> phase;
  DofCpuWorkspace* workspace = nullptr;  // required
};

struct DofMode {
  DofModeId id;
  const char* name;         // stable id: "gather_box", ...
  const char* label;        // shown in the UI
  const char* description;  // one line: what it does and what it costs
  const char* source;       // paper or origin
  // Capabilities.
  bool shaped;        // uses Params::aperture_shape (else a square box: aperture() is always Square)
  bool linear_light;  // blends in linear light (else in sRGB values)
  bool occlusion;     // depth layers (Params::dof_layers) composited with occlusion at depth edges
  bool spread;        // spreads (scatters) each pixel instead of gathering (core/dof_spread.hpp)
  bool highlights;    // takes bokeh highlights (Params::highlights) splatted with aperture()
  bool profile;       // carries the aperture's profile, catadioptric hole and chromatic aberration
  float max_radius;   // the largest Params::max_radius it takes
  // The CPU entry point (the reference of the GPU entry), phases named as the GPU's; run_cpu calls it.
  void (*cpu)(const DofMode& self, const DofCpuArgs& args);
  // Bytes a frame must move through DRAM at least, for the fraction of copy bandwidth the timings show:
  // the image and the CoC read once, the result written once, and each table the mode must keep whole
  // (all of it live at once) written and read once where it exceeds `cache_bytes` (the device's L2; 0
  // counts every table). 0: no model (show no fraction).
  double (*dram_bytes)(int width, int height, const Params& p, size_t cache_bytes);
  // The support of a frame of `p`: how far from a pixel, in x or y, anything its result depends on may lie
  // (taps, clipping, whatever a mode reads beyond max_radius), so that a tile of an image with a halo this
  // wide gives every pixel of its interior the whole image's result (core/tiled.hpp).
  int (*halo)(const DofMode& self, const Params& p);

  void run_cpu(const DofCpuArgs& args) const { cpu(*this, args); }
  int halo_of(const Params& p) const { return halo(*this, p); }
  // The aperture a frame of `p` gathers (and splats highlights) with.
  ApertureShape aperture(const Params& p) const { return shaped ? p.aperture_shape : ApertureShape::Square; }
};

const std::vector<DofMode>& dof_modes();
const DofMode& dof_mode(DofModeId id);
const DofMode* find_dof_mode(const std::string& name);  // nullptr if unknown
// Params::dof_mode's entry; throws satlab::Error naming the valid ones if unknown.
const DofMode& dof_mode_of(const Params& p);
std::string dof_mode_list();  // "a, b, c"

}  // namespace satlab
