#include "core/dof_modes.hpp"

namespace satlab {

const std::vector<DofMode>& dof_modes() {
  static const std::vector<DofMode> modes = {
      {"gather_box", "gather, square box (sRGB)",
       "each pixel the mean of the square box of its CoC radius: 4 SAT taps, sRGB values, no occlusion", false,
       false, false},
      {"gather_shape", "gather, aperture shape (sRGB)",
       "the mean over the aperture (disc, polygon or square) as up to 8 rectangles of rows: 4 SAT taps each",
       true, false, false},
      {"gather_linear", "gather, aperture shape, linear light",
       "gather_shape in linear light: sRGB decoded to 12-bit integers before the SAT (exact), encoded after",
       true, true, false},
      {"layered", "layered, occlusion-aware, linear light",
       "depth layers with their own SATs composited back to front over the aperture; what near layers hide is "
       "filled by normalised convolution of the layers behind",
       true, true, true},
      {"spread", "spread, layered, linear light",
       "each pixel spreads its colour over its aperture as signed rectangle-corner deltas into its depth "
       "layer; SATs integrate them; layers composited back to front, what near layers hide filled as layered",
       true, true, true, true},
  };
  return modes;
}

const DofMode* find_dof_mode(const std::string& name) {
  for (const DofMode& m : dof_modes())
    if (name == m.name) return &m;
  return nullptr;
}

std::string dof_mode_list() {
  std::string s;
  for (const DofMode& m : dof_modes()) s += (s.empty() ? "" : ", ") + std::string(m.name);
  return s;
}

}  // namespace satlab
