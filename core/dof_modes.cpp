#include "core/dof_modes.hpp"

#include <cmath>

#include "core/dof.hpp"
#include "core/dof_pixel.hpp"
#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

// The image's SAT (16 B per pixel), then each pixel the box of its CoC radius from 4 taps.
void gather_box_cpu(const DofMode&, const DofCpuArgs& a) {
  const auto to = [&](const char* name) {
    if (a.phase) a.phase(name);
  };
  to("sat");
  sat_rgba8(*a.image, a.workspace->sat, a.threads);
  to("blur");
  if (a.params->fractional_radius)
    dof_blur_fractional(*a.image, a.workspace->sat, *a.coc, *a.out, a.threads);
  else
    dof_blur(*a.image, a.workspace->sat, *a.coc, *a.out, a.threads);
}

// A pixel's box has the radius of its CoC, at most max_radius (rounded up: the fractional blend's second
// box) and kMaxBlurRadius; the SAT is exact integers, so a tile's taps give the whole image's sums.
int gather_box_halo(const DofMode&, const Params& p) {
  const float m = std::ceil(p.max_radius);
  return m >= float(kMaxBlurRadius) ? kMaxBlurRadius : m > 0.f ? int(m) : 0;
}

// Every mode keeps tables of 16 B per pixel that cover the frame at least and are all live when the last
// pass reads them: gather_box's SAT; the shaped modes' layer tables (each layer's box holds its pixels;
// linear light: one RGBA16 table per layer with sat_tiled); the spread's layer images. Their smaller
// tables (fill tables at 1/64 of the pixels, slices consumed right after they are written) may stay in L2.
double frame_dram_bytes(int width, int height, const Params&, size_t cache_bytes) {
  const double n = double(width) * double(height), tables = 16.0 * n;
  return 12.0 * n + (tables > double(cache_bytes) ? 2.0 * tables : 0.0);
}

}  // namespace

const std::vector<DofMode>& dof_modes() {
  static const std::vector<DofMode> modes = {
      {DofModeId::GatherBox, "gather_box", "gather, square box (sRGB)",
       "each pixel the mean of the square box of its CoC radius: 4 SAT taps, sRGB values, no occlusion",
       "box blur through a SAT (Crow 1984)", false, false, false, false, true, false, float(kMaxBlurRadius),
       gather_box_cpu, frame_dram_bytes, gather_box_halo},
      {DofModeId::GatherShape, "gather_shape", "gather, aperture shape (sRGB)",
       "the mean over the aperture (disc, polygon or square) as up to 8 rectangles of rows: 4 SAT taps each",
       "rectangles of an aperture from SAT taps (Crow 1984)", true, false, false, false, true, false,
       float(dof::kMaxShapedRadius), dof_shaped_cpu, frame_dram_bytes, dof_shaped_halo},
      {DofModeId::GatherLinear, "gather_linear", "gather, aperture shape, linear light",
       "gather_shape in linear light: sRGB decoded to 12-bit integers before the SAT (exact), encoded after",
       "rectangles of an aperture from SAT taps (Crow 1984)", true, true, false, false, true, false,
       float(dof::kMaxShapedRadius), dof_shaped_cpu, frame_dram_bytes, dof_shaped_halo},
      {DofModeId::Layered, "layered", "layered, occlusion-aware, linear light",
       "depth layers with their own SATs composited back to front over the aperture; what near layers hide is "
       "filled by normalised convolution of the layers behind",
       "layered SAT composite (satlab), normalised convolution (Knutsson and Westin 1993)", true, true, true,
       false, true, false, float(dof::kMaxShapedRadius), dof_shaped_cpu, frame_dram_bytes, dof_shaped_halo},
      {DofModeId::Spread, "spread", "spread, layered, linear light",
       "each pixel spreads its colour over its aperture as signed rectangle-corner deltas into its depth "
       "layer; SATs integrate them; layers composited back to front, what near layers hide filled as layered",
       "rectangle spreading per depth layer (Kosloff, Tao and Barsky 2009), exact SATs", true, true, true,
       true, true, true, float(dof::kMaxShapedRadius), dof_spread_cpu, frame_dram_bytes, dof_spread_halo},
  };
  return modes;
}

const DofMode& dof_mode(DofModeId id) {
  return dof_modes()[size_t(id)];
}

const DofMode* find_dof_mode(const std::string& name) {
  for (const DofMode& m : dof_modes())
    if (name == m.name) return &m;
  return nullptr;
}

const DofMode& dof_mode_of(const Params& p) {
  const DofMode* m = find_dof_mode(p.dof_mode);
  if (!m) throw Error("unknown dof mode '" + p.dof_mode + "' (valid: " + dof_mode_list() + ")");
  return *m;
}

std::string dof_mode_list() {
  std::string s;
  for (const DofMode& m : dof_modes()) s += (s.empty() ? "" : ", ") + std::string(m.name);
  return s;
}

}  // namespace satlab
