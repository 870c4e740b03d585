#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/gui/panels.hpp"

namespace satlab::gui {

void draw_timings_panel(AppState& s) {
  ImGui::Checkbox("run every frame", &s.continuous);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("otherwise the pipeline runs only when something changes");
  if (s.stage_order.empty()) {
    ImGui::TextDisabled("no frame run yet");
    return;
  }
  double total = 0;
  for (const auto& name : s.stage_order) total += s.stages[name].ema_ms;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV;
  if (ImGui::BeginTable("stages", 4, flags)) {
    ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("GB/s", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableHeadersRow();
    for (const auto& name : s.stage_order) {
      const StageStats& st = s.stages[name];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", st.ema_ms);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("average (EMA) %.3f ms, last %.3f ms", st.ema_ms, st.last_ms);
      ImGui::TableNextColumn();
      // Bytes the stage must move at minimum over its time: the bandwidth it achieves.
      if (st.bytes > 0 && st.ema_ms > 0) ImGui::Text("%.2f", st.bytes / (st.ema_ms * 1e6));
      else ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      const double share = total > 0 ? st.ema_ms / total : 0.0;
      char label[16];
      std::snprintf(label, sizeof(label), "%.0f%%", 100.0 * share);
      ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImVec4(0.35f, 0.6f, 0.95f, 1.f));
      ImGui::ProgressBar(float(share), ImVec2(-1, ImGui::GetTextLineHeight()), label);
      ImGui::PopStyleColor();
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("total");
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", total);
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%.1f fps", total > 0 ? 1000.0 / total : 0.0);
    ImGui::EndTable();
  }
  if (s.frame_ms_history.size() >= 2) {
    std::vector<float> hist(s.frame_ms_history.begin(), s.frame_ms_history.end());
    char overlay[48];
    std::snprintf(overlay, sizeof(overlay), "pipeline ms, last %d runs", int(hist.size()));
    const float top = 1.25f * *std::max_element(hist.begin(), hist.end());
    ImGui::PlotLines("##history", hist.data(), int(hist.size()), 0, overlay, 0.f, top, ImVec2(-1, 3 * ImGui::GetFrameHeight()));
  }
  ImGui::TextDisabled("pipeline runs: %d%s", s.pipeline_runs, s.continuous ? "" : " (it runs when something changes)");
}

}  // namespace satlab::gui
