#include "app/gui/app_state.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace satlab::gui {

const char* to_string(View v) {
  switch (v) {
    case View::Result: return "result";
    case View::Input: return "input";
    case View::Depth: return "depth";
    case View::Coc: return "coc";
  }
  return "result";
}

View view_from_string(const std::string& s) {
  for (View v : {View::Result, View::Input, View::Depth, View::Coc})
    if (s == to_string(v)) return v;
  throw Error("unknown view '" + s + "' (expected result, input, depth or coc)");
}

void AppState::record(const std::vector<StageTiming>& timings) {
  double total = 0;
  for (const auto& t : timings) {
    if (std::find(stage_order.begin(), stage_order.end(), t.name) == stage_order.end()) stage_order.push_back(t.name);
    StageStats& st = stages[t.name];
    st.ema_ms = pipeline_runs == 0 || st.ema_ms == 0 ? t.ms : 0.8 * st.ema_ms + 0.2 * t.ms;
    st.last_ms = t.ms;
    st.bytes = t.bytes;
    total += t.ms;
  }
  frame_ms_history.push_back(float(total));
  while (frame_ms_history.size() > 120) frame_ms_history.pop_front();
  ++pipeline_runs;
}

}  // namespace satlab::gui
