// Timings: the SAT builder and reduction selectors (they switch at the next frame, which rebuilds the
// SAT), then one row per stage: ms (EMA of its warm runs; "cold" for a first run after a change, "not run"
// for a stage the last frame skipped), GB/s on the bytes its model says must cross DRAM, the fraction of C,
// and its share of the frame (timing_table.hpp: which rows add up to the total); a SAT builder's phases are
// indented under "sat", and the display stages (the wait for the pipeline's kernels, shown apart, the
// result's copy; the viewer's draw; ImGui's ui) follow with their own clocks. Clicking a row plots its
// history. C, the device-to-device copy bandwidth, is measured once, the first time the panel is drawn.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/panels.hpp"
#include "app/gui/timing_table.hpp"
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

// GB/s to two significant digits: what the measurement supports ("4200", "85", "0.63").
std::string two_digits(double v) {
  char buf[32];
  if (v >= 100) {
    double p = 1;
    while (v / p >= 100) p *= 10;
    std::snprintf(buf, sizeof(buf), "%.0f", std::round(v / p) * p);
  } else {
    std::snprintf(buf, sizeof(buf), v >= 10 ? "%.0f" : v >= 1 ? "%.1f" : "%.2f", v);
  }
  return buf;
}

// What the tooltip of a row says about a stage that is not warm this frame.
std::string row_note(const StageStats& st) {
  char buf[256];
  switch (st.state()) {
    case StageStats::State::Warm: return "";
    case StageStats::State::Cold:
      std::snprintf(
          buf, sizeof(buf),
          "\ncold: its first run since a new backend, image size, variant or aperture,\nor a run that "
          "allocated (%.4f ms): not a warm time, in no total or average",
          st.cold_ms);
      return buf;
    case StageStats::State::NotRun:
      if (st.warm_runs > 0)
        std::snprintf(buf, sizeof(buf), "\nnot run by the last frame; its last warm EMA, from earlier frames: %.4f ms",
                      st.ema_ms);
      else
        std::snprintf(buf, sizeof(buf), "\nnot run by the last frame; it has only run cold (%.4f ms)", st.cold_ms);
      return std::string(buf) + "\n(\"run every frame\" runs every stage)";
  }
  return "";
}

// One row: a warm stage shows its EMA, a cold one its time marked "cold", a stage the last frame did not
// run "not run"; only warm stages of this frame have GB/s and a share (timing_table.hpp says which count).
void stage_row(AppState& s, const TimingRow& r, std::string& plotted) {
  const std::string& name = r.key;
  const StageStats& st = s.stages[name];
  const StageStats::State state = st.state();
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  if (!r.warm) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  if (!st.parent.empty()) ImGui::Indent();
  // A phase shows without its stage's prefix: "tiles: sums" under "sat".
  const bool prefixed = !st.parent.empty() && name.rfind(st.parent + " ", 0) == 0;
  const std::string shown = std::string(name.c_str() + (prefixed ? st.parent.size() + 1 : 0)) +
                            (st.concurrent ? " (beside)" : "") + (st.apart.empty() ? "" : " (in no total)") +
                            (state == StageStats::State::Cold ? " (cold)" : "");
  if (ImGui::Selectable(shown.c_str(), plotted == name, ImGuiSelectableFlags_SpanAllColumns)) plotted = name;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s: EMA %.4f ms, last %.4f ms over %d warm runs\ntimed with: %s%s%s%s", name.c_str(),
                      st.ema_ms, st.last_ms, st.warm_runs, st.clock.c_str(),
                      st.parent.empty() ? ""
                      : st.concurrent   ? "\na phase of its stage on a side stream: it runs beside the other "
                                          "phases (overlapping them), within its stage's time"
                                        : "\na phase of its stage, included in its time",
                      st.apart.empty() ? "" : ("\nin no total: " + st.apart).c_str(),
                      row_note(st).c_str());
  if (!st.parent.empty()) ImGui::Unindent();
  ImGui::TableNextColumn();
  if (r.warm) ImGui::Text("%.3f", st.ema_ms);
  else if (state == StageStats::State::Cold) ImGui::TextColored(ImVec4(0.95f, 0.65f, 0.3f, 1.f), "%.3f", st.cold_ms);
  else ImGui::TextUnformatted("not run");
  ImGui::TableNextColumn();
  if (r.gbps > 0) ImGui::Text("%s", two_digits(r.gbps).c_str());
  else ImGui::TextDisabled("-");
  ImGui::TableNextColumn();
  if (r.of_c > 0) {
    ImGui::Text("%.2f", r.of_c);
  } else if (r.bytes_over_c) {
    ImGui::TextColored(ImVec4(0.95f, 0.65f, 0.3f, 1.f), "-!");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("its bytes model (%.0f MB) would give %.0f GB/s, more than C: it counts bytes the L2\n"
                        "serves, not only those that must cross DRAM; no GB/s or fraction of C shown",
                        st.bytes * 1e-6, st.bytes / (st.ema_ms * 1e6));
  } else {
    ImGui::TextDisabled("-");
  }
  ImGui::TableNextColumn();
  char label[16];
  std::snprintf(label, sizeof(label), "%.0f%%", 100.0 * r.share);
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, st.parent.empty() ? ImVec4(0.35f, 0.6f, 0.95f, 1.f)
                                                                   : ImVec4(0.55f, 0.5f, 0.85f, 1.f));
  ImGui::ProgressBar(float(r.share), ImVec2(-1, ImGui::GetTextLineHeight()), r.warm && st.apart.empty() ? label : "-");
  ImGui::PopStyleColor();
  if (!r.warm) ImGui::PopStyleColor();
}

// Which run the rows below are of: the full frame, or a preview (and where the full frame is).
void run_line(const AppState& s) {
  const RunInfo& r = s.last_run;
  if (r.width == 0) return;
  const ImVec4 warn(0.95f, 0.65f, 0.3f, 1.f);
  if (!r.preview) {
    ImGui::Text("full %dx%d: host wall %.1f ms%s", r.width, r.height, r.ms, r.cold ? " (cold)" : "");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "the last run: the whole image at full resolution, %.1f ms by the host's clock around run()%s.\n"
          "A GPU backend's run() returns once its work is queued: its stages' own times are the rows "
          "below.\nOver the frame budget (%.0f ms), a change shows a preview of the visible region first",
          r.ms, r.cold ? ", a cold run (allocations, first touches)" : "", AppState::kFrameBudgetMs);
    return;
  }
  ImGui::TextColored(warn, "preview %dx%d of %dx%d: %.1f ms%s", r.width, r.height, r.image_width,
                     r.image_height, r.ms, r.cold ? " (cold)" : "");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "the last run: the visible region and a halo (%dx%d image pixels at %d, %d) box-filtered to\n"
        "%s, radii and aperture scaled by %.3f (core/preview.hpp),\n"
        "because the full frame took %.0f ms, over the frame budget of %.0f ms.\n"
        "The rows are the preview pipeline's; %s",
        r.source.width(), r.source.height(), r.source.x0, r.source.y0,
        r.level == 0   ? "the display's resolution"
        : r.level == 1 ? "half the display's resolution"
        : r.level == 2 ? "a quarter of the display's resolution"
                       : "an eighth of the display's resolution",
        r.scale, s.last_full.ms, AppState::kFrameBudgetMs,
        r.cold ? "it ran cold (its first run at this size)" : "they are warm");
  if (s.full_running)
    ImGui::TextDisabled("full %dx%d rendering on a worker thread", r.image_width, r.image_height);
  else if (s.interacting)
    ImGui::TextDisabled("the full frame follows when the control is let go");
}

}  // namespace

void draw_timings_panel(AppState& s) {
  measure_copy_bandwidth(s);
  if (combo("SAT builder", s.sat_builders, s.algorithms.sat_builder,
            "the registered SAT builders this backend can use; the next frame rebuilds the SAT with it"))
    s.algorithms_changed = true;
  if (combo("reduction", s.reductions, s.algorithms.reduction,
            "the registered min/max reduction of the depth normalisation; the next frame uses it"))
    s.algorithms_changed = true;
  ImGui::PushTextWrapPos(0.f);
  if (s.copy_gbps > 0)
    ImGui::Text("copy bandwidth C = %s GB/s (what a plain copy moves: the memory's practical limit)",
                two_digits(s.copy_gbps).c_str());
  else
    ImGui::TextDisabled("copy bandwidth C: %s", s.copy_note.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("device-to-device copy of 256 MiB (read + write), median of 7, measured once at start-up.\n"
                      "A stage's \"of C\" is its GB/s over C: 1.0 moves its bytes as fast as a copy could");
  ImGui::Checkbox("run every frame", &s.continuous);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("every stage, every frame (reduce and SAT included): each row a warm time of this frame;\n"
                      "otherwise the pipeline runs when something changes and keeps what did not change");
  run_line(s);
  if (s.stage_order.empty()) {
    ImGui::TextDisabled("no frame run yet");
    return;
  }
  static std::string plotted;  // "" = the pipeline's frame time
  const TimingTable table = timing_table(s);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV;
  // The rows scroll within a bounded height rather than running off the panel.
  const float rows_h = std::min(ImGui::GetTextLineHeightWithSpacing() * float(table.rows.size() + 3),
                                ImGui::GetTextLineHeightWithSpacing() * 16.f);
  if (ImGui::BeginTable("stages", 5, flags | ImGuiTableFlags_ScrollY, ImVec2(0.f, rows_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableSetupColumn("GB/s", ImGuiTableColumnFlags_WidthStretch, 0.6f);
    ImGui::TableSetupColumn("of C", ImGuiTableColumnFlags_WidthStretch, 0.5f);
    ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < 5; ++c) {
      ImGui::TableSetColumnIndex(c);
      ImGui::TableHeader(ImGui::TableGetColumnName(c));
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", c == 0   ? "a pipeline stage (phases indented); click: plot its history"
                                : c == 1 ? "warm EMA in ms; a cold run is shown apart and in no total"
                                : c == 2 ? "GB/s on the bytes the stage must move through DRAM (its model)"
                                : c == 3 ? "its GB/s over the copy bandwidth C: 1.0 is as fast as a copy"
                                         : "its share of the warm total");
    }
    for (const TimingRow& r : table.rows) stage_row(s, r, plotted);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (ImGui::Selectable(table.partial ? "total (warm stages)" : "total", plotted.empty(),
                          ImGuiSelectableFlags_SpanAllColumns))
      plotted.clear();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", table.partial ? "the EMAs of the stages the last frame ran warm; cold, not-run and "
                                              "waiting rows are left out"
                                            : "the EMAs of the stages (phases lie within theirs); waiting rows are "
                                              "left out");
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", table.total_ms);
    ImGui::EndTable();
  }
  const double period = s.frame_period_ms;
  if (table.period_settled)
    ImGui::TextDisabled("frame period (wall clock): %.3f ms, %.0f fps", period, period > 0 ? 1000.0 / period : 0.0);
  else
    ImGui::TextColored(ImVec4(0.95f, 0.65f, 0.3f, 1.f), "frame period (wall clock): %.3f ms (settling)", period);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("an EMA of the wall clock from one frame's start to the next; %s\nThe total adds the timed "
                      "stages; the frame period also holds the UI's host work, waits\nbetween CUDA and GL, "
                      "clearing, presenting and (in a window) vsync",
                      table.period_settled ? "every frame in it ran after the last cold run"
                                           : "settling: frames of the last cold run (loading, allocating) still "
                                             "weigh in it");
  if (table.period_settled && period > 0 && table.total_ms > period) {
    ImGui::TextColored(ImVec4(0.95f, 0.65f, 0.3f, 1.f), "the total exceeds the frame period: a row counts time twice");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("the rows are timed on different clocks (CUDA events, GL queries, host); one of them holds\n"
                        "time another row also holds");
  }
  if (!plotted.empty() && !s.stages.count(plotted)) plotted.clear();
  const std::deque<float>& source = plotted.empty() ? s.frame_ms_history : s.stages[plotted].history;
  if (source.size() >= 2) {
    std::vector<float> hist(source.begin(), source.end());
    char overlay[96];
    std::snprintf(overlay, sizeof(overlay), "%s ms, last %d", plotted.empty() ? "pipeline" : plotted.c_str(),
                  int(hist.size()));
    // Scaled to the 95th percentile: one slow frame would flatten the rest (cold runs are not in it).
    std::vector<float> sorted = hist;
    std::sort(sorted.begin(), sorted.end());
    const float top = 1.25f * sorted[sorted.size() * 95 / 100];
    // PlotLines takes no negative width (it would draw nothing): the available width, explicitly.
    ImGui::PlotLines("##history", hist.data(), int(hist.size()), 0, overlay, 0.f, top,
                     ImVec2(ImGui::GetContentRegionAvail().x, 3 * ImGui::GetFrameHeight()));
  }
  if (s.preview_runs > 0)
    ImGui::TextDisabled("pipeline runs: %d full, %d previews%s", s.pipeline_runs, s.preview_runs,
                        s.continuous ? "" : " (it runs when something changes)");
  else
    ImGui::TextDisabled("pipeline runs: %d%s", s.pipeline_runs,
                        s.continuous ? "" : " (it runs when something changes)");
}

}  // namespace satlab::gui
