#include "app/gui/timing_table.hpp"

namespace satlab::gui {
namespace {

TimingRow row_of(const AppState& s, const std::string& key, bool gpu) {
  const StageStats& st = s.stages.at(key);
  TimingRow r;
  r.key = key;
  r.warm = st.state() == StageStats::State::Warm;
  r.in_total = r.warm && st.parent.empty() && st.apart.empty();
  if (!r.warm || st.bytes <= 0 || st.ema_ms <= 0) return r;
  const double gbps = st.bytes / (st.ema_ms * 1e6);
  // C is the yardstick of the GPU's pipeline stages (CUDA events, bytes through DRAM); the display
  // stages' bytes cross other links (PCIe, GL) and the CPU's have no C.
  const bool against_c = gpu && st.of_pipeline && s.copy_gbps > 0;
  if (against_c && gbps > s.copy_gbps) {
    r.bytes_over_c = true;
    return r;
  }
  r.gbps = gbps;
  if (against_c) r.of_c = gbps / s.copy_gbps;
  return r;
}

}  // namespace

TimingTable timing_table(const AppState& s) {
  TimingTable t;
  const bool gpu = s.backend_name.rfind("gpu", 0) == 0;
  for (const std::string& key : s.stage_order) {
    const StageStats& st = s.stages.at(key);
    if (!st.parent.empty()) continue;
    t.rows.push_back(row_of(s, key, gpu));
    // Rows apart (work that does not run every frame) leave the total whole when they do not run.
    if (st.of_pipeline && st.apart.empty() && st.state() != StageStats::State::Warm) t.partial = true;
    for (const std::string& child : s.stage_order)  // its phases, right after it
      if (s.stages.at(child).parent == key) t.rows.push_back(row_of(s, child, gpu));
  }
  for (const TimingRow& r : t.rows)
    if (r.in_total) t.total_ms += s.stages.at(r.key).ema_ms;
  for (TimingRow& r : t.rows)
    if (r.warm && t.total_ms > 0 && s.stages.at(r.key).apart.empty()) r.share = s.stages.at(r.key).ema_ms / t.total_ms;
  t.period_settled = s.period_frames >= AppState::kPeriodSettleFrames;
  return t;
}

}  // namespace satlab::gui
