// The Lab: the registered GPU variants. Running and comparing them lives with the GPU benchmarks.
#include <imgui.h>

#include "app/gui/panels.hpp"
#include "gpu/device.hpp"

namespace satlab::gui {

void draw_lab_section(AppState&) {
  const auto& dev = gpu::probe();
  if (!dev.available) {
    ImGui::TextWrapped("No GPU variants to compare: %s", dev.reason.c_str());
    return;
  }
  const auto& vars = gpu::variants();
  ImGui::Text("%s, %d SMs", dev.name.c_str(), dev.sm_count);
  if (vars.empty()) {
    ImGui::TextDisabled("no GPU variants registered in this build");
    return;
  }
  for (const auto& v : vars) ImGui::BulletText("%s  %s", to_string(v.family), v.label.c_str());
}

}  // namespace satlab::gui
