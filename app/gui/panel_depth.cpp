#include <imgui.h>

#include "app/gui/panels.hpp"

namespace satlab::gui {

// Synthetic depth for images without a depth map: a tilt-shift gradient or a radial one.
void draw_depth_panel(AppState& s) {
  if (!s.depth_path.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("the image has a depth map: synthetic depth applies to images without one");
    ImGui::PopStyleColor();
    if (!ImGui::Button("use synthetic depth instead")) return;
    s.depth_path.clear();  // the session sees no depth map file and generates one
    s.synthetic_changed = true;
  }
  SyntheticDepth& d = s.synthetic;
  bool c = false;
  int mode = int(d.mode);
  c |= ImGui::RadioButton("none", &mode, int(SyntheticDepth::Mode::None));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("no depth: everything is in focus");
  ImGui::SameLine();
  c |= ImGui::RadioButton("gradient", &mode, int(SyntheticDepth::Mode::Gradient));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("tilt-shift: depth grows along a direction, the focus is a line");
  ImGui::SameLine();
  c |= ImGui::RadioButton("radial", &mode, int(SyntheticDepth::Mode::Radial));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("near at a centre, far from a radius on");
  d.mode = SyntheticDepth::Mode(mode);
  if (d.mode == SyntheticDepth::Mode::Gradient) {
    c |= ImGui::SliderFloat("angle", &d.angle, -180.f, 180.f, "%.0f deg", ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the direction from near to far; 90: near at the bottom");
    c |= ImGui::SliderFloat("position", &d.position, 0.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    c |= ImGui::SliderFloat("width", &d.width, 0.05f, 2.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("length of the ramp from near to far, in image extents");
  } else if (d.mode == SyntheticDepth::Mode::Radial) {
    c |= ImGui::SliderFloat("centre x", &d.centre_x, 0.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    c |= ImGui::SliderFloat("centre y", &d.centre_y, 0.f, 1.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    c |= ImGui::SliderFloat("radius", &d.radius, 0.05f, 2.f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
  }
  if (c) s.synthetic_changed = true;
}

}  // namespace satlab::gui
