#include "core/dof_modes.hpp"

namespace satlab {

const std::vector<DofMode>& dof_modes() {
  static const std::vector<DofMode> modes = {
      {"gather_box", "gather, square box (sRGB)",
       "each pixel the mean of the square box of its CoC radius: 4 SAT taps, sRGB values, no occlusion", false,
       false, false},
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
