#include <imgui.h>

#include "app/gui/export.hpp"
#include "app/gui/panels.hpp"

namespace satlab::gui {

void draw_sidebar(AppState& s, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  ImGui::Begin("satlab", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  draw_scene_panel(s);
  if (ImGui::CollapsingHeader("Filter", ImGuiTreeNodeFlags_DefaultOpen)) draw_params_panel(s);
  if (s.depth_edit.brush) ImGui::SetNextItemOpen(true);
  if (ImGui::CollapsingHeader("Depth")) draw_depth_panel(s);
  if (s.depth_edit.brush) ImGui::SetNextItemOpen(true);
  if (ImGui::CollapsingHeader("Depth brush")) draw_brush_panel(s);
  if (ImGui::CollapsingHeader("Files")) draw_files_panel(s);
  if (ImGui::CollapsingHeader("Ground truth")) draw_truth_panel(s);
  if (ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen)) draw_timings_panel(s);
  if (ImGui::CollapsingHeader("Backend", ImGuiTreeNodeFlags_DefaultOpen)) draw_backend_panel(s);
  if (s.compare_running) ImGui::SetNextItemOpen(true, ImGuiCond_Once);  // started from the command line
  if (ImGui::CollapsingHeader("Compare all SAT builders")) draw_compare_panel(s);
  // Asked for on the command line: open, and scrolled to the top of the sidebar for a few frames (its
  // table appears after the first).
  static int lab_scroll_frames = 0;
  if (!s.lab_request.empty()) ImGui::SetNextItemOpen(true, ImGuiCond_Once), lab_scroll_frames = 4;
  if (ImGui::CollapsingHeader("Lab")) {
    if (lab_scroll_frames > 0) ImGui::SetScrollHereY(0.0f), --lab_scroll_frames;
    draw_lab_panel(s);
  }
  ImGui::End();
}

}  // namespace satlab::gui
