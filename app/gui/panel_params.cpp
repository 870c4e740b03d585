#include <imgui.h>

#include "app/gui/panels.hpp"
#include "core/dof_modes.hpp"

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
    c |= ImGui::SliderFloat("focus range", &p.focus_range, 0.f, 0.5f, "+-%.3f", ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "every depth within +- this of the focus stays sharp; the blur grows from the band's\n"
          "edges, so depth noise near the focus plane no longer blurs the subject");
    c |= ImGui::SliderFloat("aperture", &p.aperture, 0.f, 200.f, "%.1f");
    c |= ImGui::SliderFloat("max radius", &p.max_radius, 0.f, 64.f, "%.1f px");
    c |= ImGui::DragFloatRange2("near / far", &p.near_depth, &p.far_depth, 0.05f, 0.05f, 1000.f, "%.2f");
    // Keep the range valid while dragging, so the pipeline never sees near >= far.
    if (p.near_depth < 0.01f) p.near_depth = 0.01f;
    if (p.far_depth <= p.near_depth) p.far_depth = p.near_depth + 0.01f;
    c |= ImGui::Checkbox("depth map stores disparity", &p.disparity);
    c |= ImGui::SliderFloat("camera shoulder", &p.response_shoulder, 0.f, 0.9f, "%.2f");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "camera response: the camera stored radiance v as sRGB(min(v / (1 + s v), 1)); the linear-light modes "
          "and highlights undo it before blurring and redo it after (0: plain sRGB; the ground truth's camera: 0.4)");
    // The DoF mode (core/dof_modes.hpp) and, for the shaped ones, the aperture.
    const DofMode* mode = find_dof_mode(p.dof_mode);
    if (ImGui::BeginCombo("dof mode", mode ? mode->label : p.dof_mode.c_str())) {
      for (const DofMode& m : dof_modes()) {
        if (ImGui::Selectable(m.label, p.dof_mode == m.name)) p.dof_mode = m.name, c = true;
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: %s", m.name, m.description);
      }
      ImGui::EndCombo();
    }
    mode = find_dof_mode(p.dof_mode);
    if (mode && mode->shaped) {
      int shape = int(p.aperture_shape);
      c |= ImGui::Combo("aperture shape", &shape, "square\0disc\0polygon\0");
      p.aperture_shape = ApertureShape(shape);
      if (p.aperture_shape == ApertureShape::Polygon) {
        c |= ImGui::SliderInt("blades", &p.blades, 5, 8);
        c |= ImGui::SliderFloat("blade rotation", &p.blade_rotation, 0.f, 360.f, "%.0f deg");
      }
      if (mode->occlusion) {
        c |= ImGui::SliderInt("depth layers", &p.dof_layers, 2, 8);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip(
              "CoC slices composited front to back, their edges fitted to the depth's histogram within the "
              "spread work of evenly spaced edges: more layers, fewer seams where an object crosses a slice "
              "edge, and a slower frame (docs/quality.md, \"How spread meets the lens\")");
      }
      if (p.max_radius > 511.f) p.max_radius = 511.f;  // exact 12-bit box sums
    } else {
      c |= ImGui::Checkbox("fractional radius (no banding)", &p.fractional_radius);
    }
    // Bokeh highlights (core/highlights.hpp).
    c |= ImGui::Checkbox("bokeh highlights", &p.highlights);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("bright pixels leave the gather and are splatted as sprites of the aperture's shape");
    if (p.highlights) {
      c |= ImGui::SliderFloat("highlight threshold", &p.highlight_threshold, 0.f, 1.f, "%.2f");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("linear luminance a pixel needs to become a sprite");
      c |= ImGui::SliderFloat("highlight gain", &p.highlight_gain, 1.f, 16.f, "%.1f");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("clipped highlights carry gain times the largest radiance the camera shoulder decodes");
      c |= ImGui::SliderInt("sprite cap", &p.highlight_cap, 1, 1 << 20, "%d", ImGuiSliderFlags_Logarithmic);
      const HighlightStats& h = s.highlights;
      if (!h.valid)
        ImGui::TextDisabled("sprites: no frame yet");
      else if (h.cap_hit())
        ImGui::TextColored(ImVec4(1.f, 0.7f, 0.2f, 1.f), "cap hit: %u of %u highlights splatted", h.kept, h.found);
      else
        ImGui::Text("sprites: %u (%u behind focus)", h.kept, h.far);
    }
  }
  if (c) s.params_changed = true;
}

}  // namespace satlab::gui
