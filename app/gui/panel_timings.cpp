// Timings: the SAT builder and reduction selectors (they switch at the next frame, which rebuilds the
// SAT), then one row per stage: ms (EMA), GB/s on its minimum bytes, the fraction of C, and its share of
// the frame; a SAT builder's phases are indented under "sat", and the display stages (interop map, write,
// unmap; the viewer's draw; ImGui's ui) follow with their own clocks. Clicking a row plots its history.
// C, the device-to-device copy bandwidth, is measured once, the first time the panel is drawn.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/panels.hpp"
#include "core/error.hpp"
#include "gpu/device.hpp"
#include "gpu/sat/sat_host.hpp"

namespace satlab::gui {
namespace {

// 256 MiB each way: far beyond the L2 (50 MB on an H100), median of 7 copies.
void measure_copy_bandwidth(AppState& s) {
  static bool done = false;
  if (done) return;
  done = true;
  if (!gpu::probe().available) {
    s.copy_note = "no GPU: " + gpu::probe().reason;
    return;
  }
  try {
    s.copy_gbps = gpu::copy_bandwidth_gbs(size_t(256) << 20, 7);
  } catch (const Error& e) {
    s.copy_note = e.what();
  }
}

bool combo(const char* label, const std::vector<std::string>& names, std::string& current, const char* tip) {
  bool changed = false;
  if (ImGui::BeginCombo(label, current.c_str())) {
    for (const auto& n : names) {
      const bool selected = n == current;
      if (ImGui::Selectable(n.c_str(), selected) && !selected) current = n, changed = true;
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  return changed;
}

void stage_row(AppState& s, const std::string& name, double total, bool gpu, std::string& plotted) {
  const StageStats& st = s.stages[name];
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  if (!st.current) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  if (!st.parent.empty()) ImGui::Indent();
  // A phase shows without its stage's prefix: "tiles: sums" under "sat".
  const bool prefixed = !st.parent.empty() && name.rfind(st.parent + " ", 0) == 0;
  const char* shown = name.c_str() + (prefixed ? st.parent.size() + 1 : 0);
  if (ImGui::Selectable(shown, plotted == name, ImGuiSelectableFlags_SpanAllColumns)) plotted = name;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s: EMA %.4f ms, last %.4f ms\ntimed with: %s%s%s", name.c_str(), st.ema_ms, st.last_ms,
                      st.clock.c_str(), st.parent.empty() ? "" : "\na phase of its stage, included in its time",
                      st.current ? "" : "\nnot run by the last frame (its last time; not in the total)");
  if (!st.parent.empty()) ImGui::Unindent();
  ImGui::TableNextColumn();
  ImGui::Text("%.3f", st.ema_ms);
  ImGui::TableNextColumn();
  const double gbps = st.bytes > 0 && st.ema_ms > 0 ? st.bytes / (st.ema_ms * 1e6) : 0;
  if (gbps > 0) ImGui::Text("%.0f", gbps);
  else ImGui::TextDisabled("-");
  ImGui::TableNextColumn();
  if (gbps > 0 && gpu && s.copy_gbps > 0) ImGui::Text("%.2f", gbps / s.copy_gbps);
  else ImGui::TextDisabled("-");
  ImGui::TableNextColumn();
  const double share = total > 0 && st.current ? st.ema_ms / total : 0.0;
  char label[16];
  std::snprintf(label, sizeof(label), "%.0f%%", 100.0 * share);
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, st.parent.empty() ? ImVec4(0.35f, 0.6f, 0.95f, 1.f)
                                                                   : ImVec4(0.55f, 0.5f, 0.85f, 1.f));
  ImGui::ProgressBar(float(share), ImVec2(-1, ImGui::GetTextLineHeight()), st.current ? label : "-");
  ImGui::PopStyleColor();
  if (!st.current) ImGui::PopStyleColor();
}

}  // namespace

void draw_timings_panel(AppState& s) {
  measure_copy_bandwidth(s);
  const bool gpu = s.backend_name.rfind("gpu", 0) == 0;
  if (combo("SAT builder", s.sat_builders, s.algorithms.sat_builder,
            "the registered SAT builders this backend can use; the next frame rebuilds the SAT with it"))
    s.algorithms_changed = true;
  if (combo("reduction", s.reductions, s.algorithms.reduction,
            "the registered min/max reduction of the depth normalisation; the next frame uses it"))
    s.algorithms_changed = true;
  ImGui::PushTextWrapPos(0.f);
  if (s.copy_gbps > 0)
    ImGui::Text("C = %.0f GB/s", s.copy_gbps);
  else
    ImGui::TextDisabled("C: %s", s.copy_note.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("device-to-device copy of 256 MiB (read + write), median of 7, measured once at start-up");
  ImGui::Checkbox("run every frame", &s.continuous);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("otherwise the pipeline runs only when something changes");
  if (s.stage_order.empty()) {
    ImGui::TextDisabled("no frame run yet");
    return;
  }
  static std::string plotted;  // "" = the pipeline's frame time
  double total = 0;
  for (const auto& name : s.stage_order)  // the frame: current stages, phases being inside theirs
    if (s.stages[name].parent.empty() && s.stages[name].current) total += s.stages[name].ema_ms;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV;
  if (ImGui::BeginTable("stages", 5, flags)) {
    ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableSetupColumn("GB/s", ImGuiTableColumnFlags_WidthStretch, 0.6f);
    ImGui::TableSetupColumn("of C", ImGuiTableColumnFlags_WidthStretch, 0.5f);
    ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableHeadersRow();
    for (const auto& name : s.stage_order) {
      if (!s.stages[name].parent.empty()) continue;
      stage_row(s, name, total, gpu, plotted);
      for (const auto& child : s.stage_order)  // its phases, indented under it
        if (s.stages[child].parent == name) stage_row(s, child, total, gpu, plotted);
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (ImGui::Selectable("total", plotted.empty(), ImGuiSelectableFlags_SpanAllColumns)) plotted.clear();
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", total);
    ImGui::EndTable();
  }
  const double period = s.frame_period_ms;
  ImGui::TextDisabled("frame period (wall clock): %.3f ms, %.0f fps", period, period > 0 ? 1000.0 / period : 0.0);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the total adds the timed stages; the frame period also holds the UI's host work, waits\n"
                      "between CUDA and GL, clearing, presenting and (in a window) vsync");
  if (!plotted.empty() && !s.stages.count(plotted)) plotted.clear();
  const std::deque<float>& source = plotted.empty() ? s.frame_ms_history : s.stages[plotted].history;
  if (source.size() >= 2) {
    std::vector<float> hist(source.begin(), source.end());
    char overlay[96];
    std::snprintf(overlay, sizeof(overlay), "%s ms, last %d", plotted.empty() ? "pipeline" : plotted.c_str(),
                  int(hist.size()));
    // Scaled to the 95th percentile: one cold frame (upload, first launches) would flatten the rest.
    std::vector<float> sorted = hist;
    std::sort(sorted.begin(), sorted.end());
    const float top = 1.25f * sorted[sorted.size() * 95 / 100];
    // PlotLines takes no negative width (it would draw nothing): the available width, explicitly.
    ImGui::PlotLines("##history", hist.data(), int(hist.size()), 0, overlay, 0.f, top,
                     ImVec2(ImGui::GetContentRegionAvail().x, 3 * ImGui::GetFrameHeight()));
  }
  ImGui::TextDisabled("pipeline runs: %d%s", s.pipeline_runs, s.continuous ? "" : " (it runs when something changes)");
}

}  // namespace satlab::gui
