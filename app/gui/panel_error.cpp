#include <imgui.h>

#include "app/gui/panels.hpp"

namespace satlab::gui {

void draw_error_popup(AppState& s) {
  if (!s.error.empty() && !ImGui::IsPopupOpen("Error")) ImGui::OpenPopup("Error");
  if (ImGui::BeginPopupModal("Error", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
    ImGui::TextUnformatted(s.error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TextDisabled("The previous image and settings are kept.");
    if (ImGui::Button("OK") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter))) {
      s.error.clear();
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
}

}  // namespace satlab::gui
