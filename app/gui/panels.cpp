#include "app/gui/panels.hpp"

#include <imgui.h>

#include <vector>

namespace satlab::gui {

void draw_controls_panel(AppState& s, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  ImGui::Begin("satlab", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings);
  ImGui::TextDisabled("%s", s.image_path.c_str());
  ImGui::Text("%d x %d   %s", s.image_width, s.image_height, s.depth_path.empty() ? "no depth map" : "with depth map");
  ImGui::Separator();

  ImGui::TextUnformatted("View");
  int v = int(s.view);
  const char* views[] = {"Result", "Input", "Depth", "CoC"};
  for (int i = 0; i < 4; ++i) {
    if (i) ImGui::SameLine();
    ImGui::RadioButton(views[i], &v, i);
  }
  s.view = View(v);
  ImGui::Separator();

  if (ImGui::CollapsingHeader("Filter", ImGuiTreeNodeFlags_DefaultOpen)) draw_params_section(s);
  if (ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen)) draw_timings_section(s);
  if (ImGui::CollapsingHeader("Lab")) draw_lab_section(s);
  if (ImGui::CollapsingHeader("Backend", ImGuiTreeNodeFlags_DefaultOpen)) {
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
    ImGui::Checkbox("vsync", &s.vsync);
  }
  ImGui::End();
}

void draw_params_section(AppState& s) {
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
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Normalised depth in focus; or click on the image");
    c |= ImGui::SliderFloat("aperture", &p.aperture, 0.f, 200.f, "%.1f");
    c |= ImGui::SliderFloat("max radius", &p.max_radius, 0.f, 64.f, "%.1f px");
    c |= ImGui::DragFloatRange2("near / far", &p.near_depth, &p.far_depth, 0.05f, 0.05f, 1000.f, "%.2f");
    if (p.far_depth <= p.near_depth) p.far_depth = p.near_depth + 0.01f;
    if (p.near_depth <= 0.f) p.near_depth = 0.01f;
    c |= ImGui::Checkbox("depth map stores disparity", &p.disparity);
  }
  if (c) s.params_changed = true;
}

void draw_timings_section(AppState& s) {
  if (s.stage_order.empty()) {
    ImGui::TextDisabled("no frame run yet");
    return;
  }
  if (ImGui::BeginTable("stages", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("stage");
    ImGui::TableSetupColumn("ms (avg)");
    ImGui::TableSetupColumn("ms (last)");
    ImGui::TableSetupColumn("GB/s");
    ImGui::TableHeadersRow();
    double total = 0;
    for (const auto& name : s.stage_order) {
      const StageStats& st = s.stages[name];
      total += st.ema_ms;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", st.ema_ms);
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", st.last_ms);
      ImGui::TableNextColumn();
      if (st.bytes > 0 && st.last_ms > 0) ImGui::Text("%.1f", st.bytes / (st.last_ms * 1e6));
      else ImGui::TextDisabled("-");
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("total");
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", total);
    ImGui::EndTable();
  }
  std::vector<float> hist(s.frame_ms_history.begin(), s.frame_ms_history.end());
  ImGui::PlotLines("##history", hist.data(), int(hist.size()), 0, "pipeline ms per run", 0.f, FLT_MAX,
                   ImVec2(-1, 60));
  ImGui::TextDisabled("%d pipeline runs (the pipeline runs when a parameter changes)", s.pipeline_runs);
}

void draw_error_popup(AppState& s) {
  if (!s.error.empty() && !ImGui::IsPopupOpen("Error")) ImGui::OpenPopup("Error");
  if (ImGui::BeginPopupModal("Error", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
    ImGui::TextUnformatted(s.error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TextDisabled("Nothing was changed.");
    if (ImGui::Button("OK") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter))) {
      s.error.clear();
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
}

void draw_status_overlay(const AppState& s, float x, float y, const char* pixel_info) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowBgAlpha(0.55f);
  ImGui::Begin("##status", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
  ImGui::Text("%s view", to_string(s.view));
  if (pixel_info && *pixel_info) ImGui::TextUnformatted(pixel_info);
  ImGui::TextDisabled("click: focus here  wheel: zoom  drag: pan  R: reset view  Tab: hide UI  drop files to open");
  ImGui::End();
}

}  // namespace satlab::gui
