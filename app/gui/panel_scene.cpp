#include <imgui.h>

#include "app/gui/panels.hpp"

namespace satlab::gui {
namespace {

std::string file_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

}  // namespace

void draw_scene_panel(AppState& s) {
  ImGui::TextUnformatted(file_name(s.image_path).c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.image_path.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%d x %d", s.image_width, s.image_height);
  if (s.depth_path.empty())
    ImGui::TextDisabled("no depth map: synthetic depth %s", to_spec(s.synthetic).c_str());
  else
    ImGui::TextDisabled("depth: %s", file_name(s.depth_path).c_str());
  ImGui::Spacing();

  // Until there is a file browser: a path field; Enter opens it as the image.
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("image depth").x - 4 * ImGui::GetStyle().ItemSpacing.x -
                          4 * ImGui::GetStyle().FramePadding.x);
  const bool enter = ImGui::InputTextWithHint("##path", "file to open (or drop one)",
                                              s.path_field, sizeof(s.path_field), ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("image") || enter) && s.path_field[0]) s.open_image = s.path_field;
  ImGui::SameLine();
  if (ImGui::Button("depth") && s.path_field[0]) s.open_depth = s.path_field;
  ImGui::Spacing();

  int v = int(s.view);
  const char* views[] = {"Result", "Input", "Depth", "CoC"};
  for (int i = 0; i < 4; ++i) {
    if (i) ImGui::SameLine();
    ImGui::RadioButton(views[i], &v, i);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("signed circle of confusion: warm in front of focus, cool behind");
  s.view = View(v);
  ImGui::Spacing();
}

}  // namespace satlab::gui
