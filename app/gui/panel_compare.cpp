// Compare all: every registered SAT builder that takes the current image (RGBA8) runs on it, round-robin
// one builder per frame so the UI stays live, through gpu::SatComparer (CUDA-event times per phase, output
// compared on the device with core's reference SAT, computed once per image). A sortable table shows the
// median ms of the recent runs, Gpx/s, the fraction of C on the builder's minimum bytes (with a bar), the
// phases of the last run, and a badge: bit-identical to the reference, or how many elements differ.
// Without a GPU it says why it is empty.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/panels.hpp"
#include "core/error.hpp"
#include "gpu/compare.hpp"
#include "gpu/device.hpp"

namespace satlab::gui {
namespace {

struct Row {
  const Variant* variant = nullptr;
  std::vector<double> ms;  // the last runs, oldest first
  gpu::SatComparison last;
  int runs = 0;
  double median_ms() const {
    if (ms.empty()) return 0;
    std::vector<double> v = ms;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  }
};

struct CompareState {
  std::unique_ptr<gpu::SatComparer> comparer;
  std::string error;
  unsigned generation = ~0u;  // of the image the rows are for
  size_t next = 0;
  std::vector<Row> rows;      // registry order: the round-robin's
  std::vector<size_t> order;  // rows in the table's sort order
};

constexpr size_t kKeep = 9;  // runs per builder in the median

// A new image: upload it, compute its reference SAT, list the builders that take it.
void prepare(CompareState& c, const AppState& s) {
  c.rows.clear();
  c.next = 0;
  c.generation = s.image_generation;
  if (!c.comparer) c.comparer = std::make_unique<gpu::SatComparer>();
  c.comparer->set_image(*s.image);
  for (const Variant* v : c.comparer->candidates()) c.rows.push_back(Row{v, {}, {}, 0});
  c.order.resize(c.rows.size());
  for (size_t i = 0; i < c.order.size(); ++i) c.order[i] = i;
}

void step(CompareState& c) {
  if (c.rows.empty()) return;
  Row& r = c.rows[c.next++ % c.rows.size()];
  r.last = c.comparer->run(*r.variant);
  ++r.runs;
  if (!r.last.error.empty()) return;
  r.ms.push_back(r.last.ms);
  if (r.ms.size() > kKeep) r.ms.erase(r.ms.begin());
}

double pixels_of(const CompareState& c) {
  return c.comparer ? double(c.comparer->width()) * double(c.comparer->height()) : 0.0;
}

double fraction_of_c(const Row& r, double pixels, double copy_gbps) {
  const double ms = r.median_ms();
  if (ms <= 0 || copy_gbps <= 0 || !r.variant->bytes) return 0;
  return r.variant->bytes(size_t(pixels), DType::RGBA8) / (ms * 1e6) / copy_gbps;
}

void sort_rows(CompareState& c, const ImGuiTableSortSpecs* spec, double copy_gbps) {
  if (!spec || spec->SpecsCount == 0) return;
  const int col = spec->Specs[0].ColumnIndex;
  const bool asc = spec->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
  const double px = pixels_of(c);
  auto key = [&](const Row& r) -> double {  // rows without a time sort last in ascending order
    const double ms = r.median_ms();
    switch (col) {
      case 1: return ms > 0 ? ms : 1e30;
      case 2: return ms > 0 ? fraction_of_c(r, px, copy_gbps) : -1;
      case 3: return r.last.error.empty() ? double(r.last.mismatches) : 1e30;
      case 4: return ms > 0 ? px / ms : -1;
      default: return 0;
    }
  };
  std::stable_sort(c.order.begin(), c.order.end(), [&](size_t i, size_t j) {
    const Row &a = c.rows[i], &b = c.rows[j];
    if (col == 0) return asc ? a.variant->name < b.variant->name : b.variant->name < a.variant->name;
    return asc ? key(a) < key(b) : key(b) < key(a);
  });
}

// The table as text lines (registry order), for scripted runs.
std::string as_text(const CompareState& c, double copy_gbps) {
  const double px = pixels_of(c);
  std::string out;
  for (const Row& r : c.rows) {
    char line[256];
    const double ms = r.median_ms();
    std::snprintf(line, sizeof(line), "satlab: compare %dx%d %-34s runs %d  median %.4f ms  %.1f Gpx/s  %.2f C  %s",
                  c.comparer->width(), c.comparer->height(), r.variant->name.c_str(), r.runs, ms,
                  ms > 0 ? px / (ms * 1e6) : 0.0, fraction_of_c(r, px, copy_gbps),
                  !r.last.error.empty() ? ("failed: " + r.last.error).c_str()
                  : r.runs == 0         ? "pending"
                  : r.last.mismatches   ? "DIFFERS from the CPU reference"
                                        : "bit-identical");
    out += line;
    for (const auto& [name, pms] : r.last.phases) {
      std::snprintf(line, sizeof(line), " | %s %.4f", name.c_str(), pms);
      out += line;
    }
    out += "\n";
  }
  return out;
}

void badge(const Row& r) {
  if (!r.last.error.empty()) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "failed");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.last.error.c_str());
  } else if (r.runs == 0) {
    ImGui::TextDisabled("pending");
  } else if (r.last.mismatches == 0) {
    ImGui::TextColored(ImVec4(0.4f, 1, 0.4f, 1), "bit-identical");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("all %zu uint32 elements equal the CPU reference SAT", r.last.elements);
  } else {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%zu differ", r.last.mismatches);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%zu of %zu elements differ from the CPU reference SAT; the first at element %zu",
                        r.last.mismatches, r.last.elements, r.last.first_mismatch);
  }
}

}  // namespace

void draw_compare_panel(AppState& s) {
  static CompareState c;
  const auto& dev = gpu::probe();
  if (!dev.available) {
    ImGui::TextWrapped("Nothing to compare: %s", dev.reason.c_str());
    if (s.compare_running) s.compare_table = "satlab: compare all: nothing to compare: " + dev.reason + "\n";
    return;
  }
  if (!s.image || s.image->empty()) {
    ImGui::TextDisabled("no image open");
    return;
  }
  if (ImGui::Button(s.compare_running ? "Stop" : "Compare all")) s.compare_running = !s.compare_running;
  ImGui::SameLine();
  ImGui::TextDisabled("one builder per frame, on the %dx%d image", s.image->width, s.image->height);
  if (s.compare_running) {
    try {
      if (c.generation != s.image_generation) prepare(c, s);
      step(c);
      c.error.clear();
      s.compare_table = as_text(c, s.copy_gbps);
    } catch (const Error& e) {
      c.error = e.what();
      s.compare_running = false;
      s.compare_table = "satlab: compare all: " + c.error + "\n";
      c.rows.clear();
      c.order.clear();
      c.generation = ~0u;
    }
  }
  if (!c.error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", c.error.c_str());
  if (c.rows.empty()) return;
  if (s.copy_gbps > 0) ImGui::Text("C = %.0f GB/s; fraction of C on each builder's minimum bytes", s.copy_gbps);
  // Scrolls sideways in a narrow sidebar: the phases column is as wide as its text.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  const float height = scrolling_table_height("compare", c.order.size());
  if (!ImGui::BeginTable("compare", 6, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(1, 1);  // the builder's name and the header stay in view
  ImGui::TableSetupColumn("builder", ImGuiTableColumnFlags_DefaultSort);
  ImGui::TableSetupColumn("ms");
  ImGui::TableSetupColumn("of C", ImGuiTableColumnFlags_WidthFixed, 4 * ImGui::GetFontSize());
  ImGui::TableSetupColumn("vs CPU");
  ImGui::TableSetupColumn("Gpx/s");
  ImGui::TableSetupColumn("phases (ms)", ImGuiTableColumnFlags_NoSort);
  ImGui::TableHeadersRow();
  sort_rows(c, ImGui::TableGetSortSpecs(), s.copy_gbps);  // every frame: the numbers move
  const double px = pixels_of(c);
  for (size_t i : c.order) {
    const Row& r = c.rows[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const std::string& name = r.variant->name;
    ImGui::TextUnformatted(name.c_str() + (name.rfind("sat_", 0) == 0 ? 4 : 0));  // all are SAT builders
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s: %s\n%s", name.c_str(), r.variant->label.c_str(), r.variant->source.c_str());
    const double ms = r.median_ms();
    ImGui::TableNextColumn();
    if (ms > 0) ImGui::Text("%.3f", ms);
    else ImGui::TextDisabled("-");
    if (ms > 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("median of the last %zu runs", r.ms.size());
    ImGui::TableNextColumn();
    const double frac = fraction_of_c(r, px, s.copy_gbps);
    char label[16];
    std::snprintf(label, sizeof(label), "%.2f", frac);
    ImGui::ProgressBar(float(std::min(frac, 1.0)), ImVec2(-1, ImGui::GetTextLineHeight()), frac > 0 ? label : "-");
    ImGui::TableNextColumn();
    badge(r);
    ImGui::TableNextColumn();
    if (ms > 0) ImGui::Text("%.1f", px / (ms * 1e6));
    else ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    std::string phases;
    for (const auto& [name, pms] : r.last.phases) {
      const char* shown = name.rfind("sat ", 0) == 0 ? name.c_str() + 4 : name.c_str();  // under "sat" already
      char item[96];
      std::snprintf(item, sizeof(item), "%s%s %.3f", phases.empty() ? "" : " | ", shown, pms);
      phases += item;
    }
    if (phases.empty()) ImGui::TextDisabled(r.runs ? "(no phases reported)" : "-");
    else ImGui::TextUnformatted(phases.c_str());
  }
  remember_table_height("compare", c.order.size());
  ImGui::EndTable();
}

}  // namespace satlab::gui
