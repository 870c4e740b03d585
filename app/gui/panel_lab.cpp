// The Lab: pick a machine (the GPU, or the CPU's own variants: core/primitives_cpu.hpp), a family
// (reduction, scan, compaction or sort; the CPU has reductions and scans), N and element type, run every
// registered variant and show the Harris-style table (ms, GB/s, fraction of the copy bandwidth C measured in
// the same run, step and cumulative speedup, correctness) with bars. Runs on demand (a click),
// synchronously: a full GPU table takes about a second at 2^24. Without a GPU the CPU's table is there,
// and the panel says why the GPU's is not.
#include <imgui.h>

#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/panels.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/primitives_cpu.hpp"
#include "gpu/bench/primitives.hpp"
#include "gpu/device.hpp"

namespace satlab::gui {
namespace {

constexpr Family kFamilies[] = {Family::Reduce, Family::Scan, Family::Compact, Family::Sort};
constexpr const char* kFamilyNames[] = {"reduce", "scan", "compact", "sort"};

struct LabState {
  bool cpu = false;  // the CPU's variants (forced without a GPU)
  int family = 0;    // index into kFamilies
  int log2n = 22;
  int dtype = 0;   // 0 i32, 1 f32, 2 u32
  std::vector<gpu::PrimitiveResult> rows;
  gpu::Bandwidth bw;
  std::string error;
  std::string cpu_note;  // the CPU table's threads, SIMD and whether its data fit in the last cache
};

// The CPU's table in the GPU's rows (the same columns); read bandwidth is not measured there (0).
void run_cpu(LabState& s) {
  if (kFamilies[s.family] != Family::Reduce && kFamilies[s.family] != Family::Scan)
    throw Error(std::string("the CPU has no ") + kFamilyNames[s.family] + " variants (reductions and scans)");
  if (s.dtype == 1) throw Error("the CPU variants take 32-bit integers (int32, uint32), not float");
  const size_t n = size_t(1) << s.log2n;
  const CpuPrimitiveTable t = bench_cpu_primitives(kFamilies[s.family], n, 0, 2, 7);
  s.bw.copy_gbps = t.copy_gbps;
  s.bw.read_gbps = 0;
  for (const CpuPrimitiveRow& r : t.rows) {
    gpu::PrimitiveResult g;
    g.family = kFamilyNames[s.family];
    g.variant = r.variant;
    g.label = r.label;
    g.n = n;
    g.median_ms = r.median_ms;
    g.bytes = r.bytes;
    g.gbps = r.gbps;
    g.correct = r.correct;
    g.note = r.note;
    s.rows.push_back(g);
  }
  s.cpu_note = std::to_string(t.threads) + " threads, " + t.simd + "; " +
               cpu_cache_note(t.rows.empty() ? 0 : t.rows.front().bytes);
}

void run_all(LabState& s) {
  static const DType types[] = {DType::I32, DType::F32, DType::U32};
  s.rows.clear();
  s.error.clear();
  try {
    gpu::PrimitiveBenchOptions o;
    o.family = kFamilies[s.family];
    // Compactions take int32, sorts uint32 keys.
    if (o.family == Family::Compact) s.dtype = 0;
    if (o.family == Family::Sort) s.dtype = 2;
    o.dtype = types[s.dtype];
    o.n = size_t(1) << s.log2n;
    o.warmup = 3;
    if (s.cpu) return run_cpu(s);
    s.bw = gpu::measure_bandwidth(o.n * dtype_size(o.dtype), 20);
    s.rows = gpu::bench_primitives(o);
  } catch (const Error& e) {
    s.error = e.what();
  }
}

// "[cpu:|gpu:]scan:24:float" (checked by the CLI) into the panel's choices; without a prefix the GPU where
// there is one, else the CPU.
void apply_request(LabState& s, std::string request, bool gpu_available) {
  s.cpu = !gpu_available;
  if (request.compare(0, 4, "cpu:") == 0 || request.compare(0, 4, "gpu:") == 0) {
    s.cpu = request[0] == 'c';
    request.erase(0, 4);
  }
  const size_t c1 = request.find(':');
  s.family = 0;
  for (int f = 0; f < 4; ++f)
    if (request.compare(0, c1, kFamilyNames[f]) == 0) s.family = f;
  if (kFamilies[s.family] == Family::Sort) s.dtype = 2;
  if (c1 == std::string::npos) return;
  const size_t c2 = request.find(':', c1 + 1);
  s.log2n = std::stoi(request.substr(c1 + 1, c2 - c1 - 1));
  if (c2 == std::string::npos) return;
  const std::string t = request.substr(c2 + 1);
  s.dtype = t == "float" ? 1 : t == "uint32" ? 2 : 0;
}

// The table as text, for scripted runs (same columns as the panel).
std::string as_text(const LabState& s) {
  static const char* type_names[] = {"int32", "float", "uint32"};
  if (!s.error.empty()) return "satlab: lab: " + s.error + "\n";
  std::string out;
  char line[256];
  if (s.cpu)
    std::snprintf(line, sizeof line, "satlab: lab: %s %s n=2^%d on the CPU (%s), C = %.1f GB/s (threaded copy)\n",
                  kFamilyNames[s.family], type_names[s.dtype], s.log2n, s.cpu_note.c_str(), s.bw.copy_gbps);
  else
    std::snprintf(line, sizeof line, "satlab: lab: %s %s n=2^%d, C = %.0f GB/s, read = %.0f GB/s\n",
                  kFamilyNames[s.family], type_names[s.dtype], s.log2n, s.bw.copy_gbps, s.bw.read_gbps);
  out += line;
  std::snprintf(line, sizeof line, "%-36s %9s %7s %5s %7s %7s %s\n", "variant", "ms", "GB/s", "of C", "step",
                "cumul", "ok");
  out += line;
  double first = 0, prev = 0;
  for (const auto& r : s.rows) {
    if (r.median_ms <= 0) {
      std::snprintf(line, sizeof line, "%-36s refused: %s\n", r.variant.c_str(), r.note.c_str());
    } else {
      if (first == 0) first = r.median_ms;
      std::snprintf(line, sizeof line, s.cpu ? "%-36s %9.4f %7.1f %5.2f %6.2fx %6.2fx %s\n"
                                             : "%-36s %9.4f %7.0f %5.2f %6.2fx %6.2fx %s\n", r.variant.c_str(), r.median_ms,
                    r.gbps, s.bw.copy_gbps > 0 ? r.gbps / s.bw.copy_gbps : 0, prev > 0 ? prev / r.median_ms : 1.0,
                    first / r.median_ms, r.correct ? "yes" : "NO");
      prev = r.median_ms;
    }
    out += line;
  }
  return out;
}

}  // namespace

void draw_lab_panel(AppState& app) {
  static LabState s;
  const auto& dev = gpu::probe();
  if (!app.lab_request.empty()) {  // asked for on the command line: run once, keep the table as text
    apply_request(s, app.lab_request, dev.available);
    app.lab_request.clear();
    const bool cpu_family = kFamilies[s.family] == Family::Reduce || kFamilies[s.family] == Family::Scan;
    if (!dev.available && (!s.cpu || !cpu_family)) {
      app.lab_table = "satlab: lab: no GPU variants to compare: " + dev.reason +
                      (cpu_family ? std::string() : std::string("; the CPU has no ") + kFamilyNames[s.family] +
                                                        " variants (reductions and scans)") + "\n";
    } else {
      run_all(s);
      app.lab_table = as_text(s);
    }
  }
  if (dev.available) {
    int machine = s.cpu ? 1 : 0;
    const std::string gpu_name = "GPU: " + dev.name + ", " + std::to_string(dev.sm_count) + " SMs";
    const std::string items = gpu_name + '\0' + "CPU: " + std::to_string(default_threads()) + " threads, " +
                              cpu_simd() + '\0' + '\0';
    if (ImGui::Combo("machine", &machine, items.c_str())) s.cpu = machine == 1, s.rows.clear(), s.error.clear();
  } else {
    s.cpu = true;
    ImGui::TextWrapped("No GPU (%s): the CPU's own variants.", dev.reason.c_str());
  }
  if (s.cpu) {
    ImGui::Text("CPU: %d threads, %s; %zu variants registered", default_threads(), cpu_simd().c_str(),
                cpu_variants().size());
    if (s.family > 1) s.family = 1;
    ImGui::Combo("family", &s.family, "reduction\0scan\0");
    ImGui::SliderInt("log2 N", &s.log2n, 10, 28);
    ImGui::Combo("type", &s.dtype, "int32\0float\0uint32\0");
  } else {
    ImGui::Text("%s, %d SMs, %zu variants registered", dev.name.c_str(), dev.sm_count, gpu::variants().size());
    ImGui::Combo("family", &s.family, "reduction\0scan\0compaction (keep 10%)\0sort (key-value)\0");
    ImGui::SliderInt("log2 N", &s.log2n, 10, 28);
    if (s.family <= 1) {
      ImGui::Combo("type", &s.dtype, s.family == 0 ? "int32\0float\0" : "int32\0float\0uint32\0");
      if (s.family == 0 && s.dtype > 1) s.dtype = 0;
    } else {
      s.dtype = s.family == 2 ? 0 : 2;
      ImGui::Text("type: %s", s.family == 2 ? "int32" : "uint32 keys, uint32 values");
    }
  }
  if (ImGui::Button("Run all variants")) run_all(s);
  if (!s.error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", s.error.c_str());
  if (s.rows.empty()) return;
  if (s.cpu)
    ImGui::TextWrapped("C = %.1f GB/s (the fastest of three threaded copies); %s", s.bw.copy_gbps, s.cpu_note.c_str());
  else
    ImGui::Text("C = %.0f GB/s (device copy), read = %.0f GB/s", s.bw.copy_gbps, s.bw.read_gbps);
  // Scrolls sideways in a narrow sidebar, the variant's name frozen.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollX;
  const float height = scrolling_table_height("lab", s.rows.size());
  if (!ImGui::BeginTable("lab", 7, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("variant");
  ImGui::TableSetupColumn("ms");
  ImGui::TableSetupColumn("of C", ImGuiTableColumnFlags_WidthFixed, 4 * ImGui::GetFontSize());
  ImGui::TableSetupColumn("GB/s");
  ImGui::TableSetupColumn("step");
  ImGui::TableSetupColumn("cumul");
  ImGui::TableSetupColumn("ok");
  ImGui::TableHeadersRow();
  double first = 0, prev = 0;
  for (const auto& r : s.rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.variant.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.label.c_str());
    if (r.median_ms <= 0) {
      ImGui::TableNextColumn();
      ImGui::TextDisabled("refused: %s", r.note.c_str());
      continue;
    }
    if (first == 0) first = r.median_ms;
    const double frac = s.bw.copy_gbps > 0 ? r.gbps / s.bw.copy_gbps : 0;
    ImGui::TableNextColumn();
    ImGui::Text("%.4f", r.median_ms);
    ImGui::TableNextColumn();
    char label[16];
    std::snprintf(label, sizeof(label), "%.2f", frac);
    ImGui::ProgressBar(float(frac > 1 ? 1 : frac), ImVec2(-1, ImGui::GetTextLineHeight()), label);
    ImGui::TableNextColumn();
    ImGui::Text(s.cpu ? "%.1f" : "%.0f", r.gbps);
    ImGui::TableNextColumn();
    ImGui::Text("%.2fx", prev > 0 ? prev / r.median_ms : 1.0);
    ImGui::TableNextColumn();
    ImGui::Text("%.2fx", first / r.median_ms);
    ImGui::TableNextColumn();
    if (r.correct) ImGui::TextColored(ImVec4(0.4f, 1, 0.4f, 1), "yes");
    else ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "NO");
    if (!r.correct && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.note.c_str());
    prev = r.median_ms;
  }
  remember_table_height("lab", s.rows.size());
  ImGui::EndTable();
}

}  // namespace satlab::gui
