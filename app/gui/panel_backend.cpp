#include <imgui.h>

#include "app/gui/panels.hpp"

namespace satlab::gui {

void draw_backend_panel(AppState& s) {
  int b = s.backend == "cpu" ? 1 : s.backend == "gpu" ? 2 : 0;
  if (ImGui::Combo("backend", &b, "auto\0cpu\0gpu\0")) {
    s.backend = b == 1 ? "cpu" : b == 2 ? "gpu" : "auto";
    s.backend_changed = true;
  }
  ImGui::TextWrapped("Pipeline: %s", s.backend_name.c_str());
  if (!s.backend_note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.75f, 0.3f, 1.f));
    ImGui::TextWrapped("%s", s.backend_note.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::TextWrapped("Display: %s", s.surface_name.c_str());
  if (!s.display_path.empty()) ImGui::TextWrapped("Result to screen: %s", s.display_path.c_str());
  if (*s.viewer_pass) ImGui::TextWrapped("Viewer: %s", s.viewer_pass);
  ImGui::Checkbox("vsync", &s.vsync);
}

}  // namespace satlab::gui
