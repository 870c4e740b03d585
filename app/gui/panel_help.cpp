#include <imgui.h>

#include "app/gui/keys.hpp"
#include "app/gui/panels.hpp"

namespace satlab::gui {

void draw_help_overlay(AppState& s, float display_w, float display_h) {
  if (!s.show_help) return;
  ImGui::SetNextWindowPos(ImVec2(0.5f * display_w, 0.5f * display_h), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.92f);
  ImGui::Begin("Keys and mouse", &s.show_help,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove);
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("input");
    ImGui::TableSetupColumn("action");
    ImGui::TableHeadersRow();
    for (const KeyBinding& k : kKeyBindings) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(plain(k.input).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(plain(k.action).c_str());
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("the same table: README.md and `satlab --keys`");
  ImGui::End();
}

}  // namespace satlab::gui
