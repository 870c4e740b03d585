#include <imgui.h>

#include <cstdint>
#include <cstdio>

#include "app/gui/panels.hpp"

namespace satlab::gui {

namespace {

// Labels under a legend strip: at the left, the centre (optional) and the right.
void legend_labels(const char* left, const char* centre, const char* right, float width) {
  const float x0 = ImGui::GetCursorPosX();
  ImGui::TextDisabled("%s", left);
  if (centre) {
    ImGui::SameLine(x0 + 0.5f * (width - ImGui::CalcTextSize(centre).x));
    ImGui::TextDisabled("%s", centre);
  }
  ImGui::SameLine(x0 + width - ImGui::CalcTextSize(right).x);
  ImGui::TextDisabled("%s", right);
}

}  // namespace

void draw_status_overlay(const AppState& s, float x, float y, unsigned legend_texture) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowBgAlpha(0.55f);
  ImGui::Begin("##status", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
  if (s.compare == Compare::Off)
    ImGui::Text("%s view", to_string(s.view));
  else
    ImGui::Text("%s | %s (%s)", to_string(s.compare_view), to_string(s.view),
                s.compare == Compare::Split ? "split" : "side by side");
  ImGui::SameLine();
  if (s.zoom_fit)
    ImGui::TextDisabled("zoom fit (%.0f%%)", 100.f * s.zoom);
  else
    ImGui::TextDisabled("zoom %.0f%%", 100.f * s.zoom);
  if (s.sweeping) {
    ImGui::SameLine();
    ImGui::TextDisabled("focus sweep %.2f (any key stops)", s.params.focus);
  }
  if (s.showing_preview && s.resolution_note.empty()) {  // the pipeline's views show a preview, not the full frame
    const RunInfo& r = s.last_run;
    ImGui::TextColored(ImVec4(0.95f, 0.65f, 0.3f, 1.f), "preview %dx%d of %dx%d%s", r.width, r.height,
                       r.image_width, r.image_height,
                       s.full_running  ? ": full frame rendering"
                       : s.interacting ? ": full frame on release"
                                       : "");
  }
  if (s.depth_edit.subject)
    ImGui::TextColored(ImVec4(0.5f, 0.95f, 0.5f, 1.f), "subject select: click the subject, Shift+click background, "
                       "Ctrl+Z takes back (S: off)%s%s", s.depth_edit.subject_note.empty() ? "" : "; ",
                       s.depth_edit.subject_note.c_str());
  else if (s.depth_edit.source == DepthSource::None && s.params.filter == FilterKind::Dof && s.image_width > 0)
    ImGui::TextColored(ImVec4(0.5f, 0.95f, 0.5f, 1.f),
                       "no depth map: press S and click the subject for a portrait (gradient and radial depth: "
                       "Depth panel)");
  if (!s.resolution_note.empty()) ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.f, 1.f), "%s", s.resolution_note.c_str());
  if (s.view == View::Diff && !s.view_note.empty()) ImGui::TextUnformatted(s.view_note.c_str());
  if (!s.pixel_info.empty()) ImGui::TextUnformatted(s.pixel_info.c_str());
  if (legend_texture) {
    const float w = 18 * ImGui::GetFontSize();
    ImGui::Image(reinterpret_cast<ImTextureID>(uintptr_t(legend_texture)),
                 ImVec2(w, 0.8f * ImGui::GetFontSize()));
    char left[32], right[32];
    if (s.view == View::Depth || s.view == View::RawDepth) {
      // d = 0 is the near plane unless the map stores disparity (then it is the far one).
      legend_labels(s.params.disparity ? "0 far" : "0 near", "depth", s.params.disparity ? "near 1" : "far 1",
                    w);
    } else if (s.view == View::Diff) {
      std::snprintf(right, sizeof(right), "%.0f levels", s.diff_max);
      legend_labels("0 (same)", "|result - CPU|", right, w);
    } else if (s.view == View::Sat) {
      legend_labels("0", "log(1 + SAT) of luminance", "max", w);
    } else {
      std::snprintf(left, sizeof(left), "-%.0f px far", s.params.max_radius);
      std::snprintf(right, sizeof(right), "near +%.0f px", s.params.max_radius);
      legend_labels(left, "in focus", right, w);
    }
  }
  ImGui::TextDisabled("F1: keys and mouse  Ctrl+O: open  1-8: views  C: compare  Tab: hide UI");
  ImGui::End();
}

}  // namespace satlab::gui
