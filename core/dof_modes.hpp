// The depth-of-field modes: one list that the CLI (--dof-mode), the Filter panel, `satlab quality`,
// `satlab variants` and both backends read. A mode is a family-dof variant of the GPU registry with a
// CPU reference in core/ of the same name.
#pragma once
#include <string>
#include <vector>

namespace satlab {

struct DofMode {
  const char* name;         // stable id: "gather_box", ...
  const char* label;        // shown in the UI
  const char* description;  // one line: what it does and what it costs
  bool shaped;              // uses Params::aperture_shape (else a square box)
  bool linear_light;        // blends in linear light (else in sRGB values)
  bool occlusion;           // handles occlusion at depth edges
  bool spread = false;      // spreads (scatters) each pixel instead of gathering (core/dof_spread.hpp)
};

const std::vector<DofMode>& dof_modes();
const DofMode* find_dof_mode(const std::string& name);  // nullptr if unknown
std::string dof_mode_list();                            // "a, b, c"

}  // namespace satlab
