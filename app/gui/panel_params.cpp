#include <imgui.h>

#include "app/gui/panels.hpp"

namespace satlab::gui {

void draw_params_panel(AppState& s) {
  Params& p = s.params;
  bool c = false;
  int f = p.filter == FilterKind::Box ? 0 : 1;
  c |= ImGui::RadioButton("depth of field", &f, 1);
  ImGui::SameLine();
  c |= ImGui::RadioButton("box", &f, 0);
  p.filter = f == 0 ? FilterKind::Box : FilterKind::Dof;
  if (p.filter == FilterKind::Box) {
    c |= ImGui::SliderInt("radius", &p.box_radius, 0, 64, "%d px");
  } else {
    c |= ImGui::SliderFloat("focus", &p.focus, 0.f, 1.f, "%.3f");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("normalised depth in focus; or click on the image");
    c |= ImGui::SliderFloat("aperture", &p.aperture, 0.f, 200.f, "%.1f");
    c |= ImGui::SliderFloat("max radius", &p.max_radius, 0.f, 64.f, "%.1f px");
    c |= ImGui::DragFloatRange2("near / far", &p.near_depth, &p.far_depth, 0.05f, 0.05f, 1000.f, "%.2f");
    // Keep the range valid while dragging, so the pipeline never sees near >= far.
    if (p.near_depth < 0.01f) p.near_depth = 0.01f;
    if (p.far_depth <= p.near_depth) p.far_depth = p.near_depth + 0.01f;
    c |= ImGui::Checkbox("depth map stores disparity", &p.disparity);
    c |= ImGui::Checkbox("fractional radius (no banding)", &p.fractional_radius);
  }
  if (c) s.params_changed = true;
}

}  // namespace satlab::gui
