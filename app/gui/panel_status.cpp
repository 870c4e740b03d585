#include <imgui.h>

#include "app/gui/panels.hpp"

namespace satlab::gui {

void draw_status_overlay(const AppState& s, float x, float y) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowBgAlpha(0.55f);
  ImGui::Begin("##status", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
  ImGui::Text("%s view", to_string(s.view));
  if (!s.pixel_info.empty()) ImGui::TextUnformatted(s.pixel_info.c_str());
  ImGui::TextDisabled("click: focus here  wheel: zoom  drag: pan  R: reset view  Tab: hide UI  drop files to open");
  ImGui::End();
}

}  // namespace satlab::gui
