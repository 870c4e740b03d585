#include "app/gui/app_state.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"

namespace satlab::gui {

const char* to_string(View v) {
  switch (v) {
    case View::Result: return "result";
    case View::Input: return "input";
    case View::Depth: return "depth";
    case View::Coc: return "coc";
    case View::Sat: return "sat";
    case View::Diff: return "diff";
    case View::RawDepth: return "raw-depth";
    case View::Truth: return "truth";
  }
  return "result";
}

View view_from_string(const std::string& s) {
  for (int v = 0; v < kViewCount; ++v)
    if (s == to_string(View(v))) return View(v);
  throw Error("unknown view '" + s + "' (expected result, input, depth, coc, sat, diff, raw-depth or truth)");
}

const char* to_string(DepthSource s) {
  switch (s) {
    case DepthSource::None: return "none";
    case DepthSource::File: return "file";
    case DepthSource::Embedded: return "embedded";
    case DepthSource::Synthetic: return "synthetic";
    case DepthSource::Painted: return "painted";
    case DepthSource::Stereo: return "stereo";
    case DepthSource::Selection: return "selection";
  }
  return "none";
}

DepthOrigin origin_of(DepthSource s) {
  switch (s) {
    case DepthSource::File: return DepthOrigin::File;
    case DepthSource::Embedded: return DepthOrigin::Embedded;
    case DepthSource::Painted: return DepthOrigin::Brush;
    case DepthSource::Stereo: return DepthOrigin::Stereo;
    case DepthSource::None:
    case DepthSource::Selection:  // full size, its edges from the selection's matte
    case DepthSource::Synthetic: return DepthOrigin::Synthetic;
  }
  return DepthOrigin::Synthetic;
}

const char* to_string(Compare c) {
  switch (c) {
    case Compare::Off: return "off";
    case Compare::Split: return "split";
    case Compare::SideBySide: return "side";
  }
  return "off";
}

Compare compare_from_string(const std::string& s, float* split) {
  if (s == "off") return Compare::Off;
  if (s == "side") return Compare::SideBySide;
  if (s == "split") return Compare::Split;
  if (s.rfind("split:", 0) == 0) {
    char* end = nullptr;
    const float f = std::strtof(s.c_str() + 6, &end);
    if (end != s.c_str() + 6 && *end == 0 && f >= 0.f && f <= 1.f) {
      *split = f;
      return Compare::Split;
    }
  }
  throw Error("unknown compare mode '" + s + "' (expected off, split, split:F with F in [0,1], or side)");
}

// A phase's display name starts with its stage's ("sat rows: ...", "dof sat"), so that a phase never shares
// a row, and a history, with a stage of the same name (the spread's "sat" phase and gather_box's sat stage).
std::string AppState::stage_key(const StageTiming& t) {
  if (t.parent.empty() || t.name.rfind(t.parent + " ", 0) == 0) return t.name;
  return t.parent + " " + t.name;
}

void AppState::record_stage(const StageTiming& t, const char* clock, const char* apart) {
  StageTiming first = t;
  first.cold = t.cold || !stages.count(stage_key(t));
  record_timing(first, clock, apart);
}

void AppState::record_timing(const StageTiming& t, const char* clock, const char* apart) {
  const std::string key = stage_key(t);
  if (std::find(stage_order.begin(), stage_order.end(), key) == stage_order.end()) stage_order.push_back(key);
  StageStats& st = stages[key];
  st.bytes = t.bytes;
  st.parent = t.parent;
  st.concurrent = t.concurrent;
  st.apart = apart;
  st.clock = clock;
  st.current = true;
  st.cold = t.cold;
  if (t.cold) {  // a new configuration: its warm statistics start afresh with the next run
    st.cold_ms = t.ms;
    st.ema_ms = st.last_ms = 0;
    st.warm_runs = 0;
    st.history.clear();
    return;
  }
  st.ema_ms = st.warm_runs == 0 ? t.ms : 0.8 * st.ema_ms + 0.2 * t.ms;
  st.last_ms = t.ms;
  ++st.warm_runs;
  st.history.push_back(float(t.ms));
  while (st.history.size() > 120) st.history.pop_front();
}

void AppState::clear_timings() {
  stages.clear();
  stage_order.clear();
  frame_ms_history.clear();
  last_recorded_run = 0;
  parked = TimingSet();
  timings_of_preview = false;
}

void AppState::show_timings_of(bool preview) {
  if (preview == timings_of_preview) return;
  timings_of_preview = preview;
  TimingSet live{std::move(stage_order), std::move(stages), std::move(frame_ms_history), last_recorded_run};
  stage_order = std::move(parked.stage_order);
  stages = std::move(parked.stages);
  frame_ms_history = std::move(parked.frame_ms_history);
  last_recorded_run = parked.last_recorded_run;
  parked = TimingSet();
  // The display's rows go with the shown kind, after its pipeline rows.
  for (const std::string& key : live.stage_order) {
    StageStats& st = live.stages[key];
    if (st.of_pipeline) {
      parked.stage_order.push_back(key);
      parked.stages[key] = std::move(st);
    } else {
      if (std::find(stage_order.begin(), stage_order.end(), key) == stage_order.end())
        stage_order.push_back(key);
      stages[key] = std::move(st);
    }
  }
  parked.frame_ms_history = std::move(live.frame_ms_history);
  parked.last_recorded_run = live.last_recorded_run;
}

void AppState::record_apart(bool preview, const std::vector<StageTiming>& timings) {
  const bool shown = timings_of_preview;
  const int frames = period_frames;  // the frame period is the shown kind's business
  show_timings_of(preview);
  record(timings);
  show_timings_of(shown);
  period_frames = frames;
}

void AppState::record(const std::vector<StageTiming>& timings) {
  // The same run read again (a backend reading its events a frame late) counts once.
  if (timings.empty()) return;
  if (timings.front().run != 0) {
    if (timings.front().run == last_recorded_run) return;
    last_recorded_run = timings.front().run;
  }
  // Phases of a stage that this frame's stage no longer reports are dropped where the stage reports a phase
  // not seen before (another SAT builder or DoF mode). A stage that reports only known phases skipped the
  // others this frame (gather_box's kept SAT): their rows stay and show "not run".
  auto reported = [&](const std::string& name) {
    return std::any_of(timings.begin(), timings.end(),
                       [&](const StageTiming& t) { return stage_key(t) == name; });
  };
  auto new_phases = [&](const std::string& parent) {
    return std::any_of(timings.begin(), timings.end(), [&](const StageTiming& t) {
      return t.parent == parent && stages.find(stage_key(t)) == stages.end();
    });
  };
  for (auto it = stage_order.begin(); it != stage_order.end();) {
    const std::string& parent = stages[*it].parent;
    if (!parent.empty() && reported(parent) && !reported(*it) && new_phases(parent)) {
      stages.erase(*it);
      it = stage_order.erase(it);
    } else {
      ++it;
    }
  }
  const char* clock = backend_name.rfind("gpu", 0) == 0 ? "CUDA events, read a frame late" : "host clock";
  for (auto& [name, st] : stages)
    if (st.of_pipeline) st.current = false;
  double total = 0;
  bool cold = false;
  for (const auto& t : timings) {
    record_timing(t, clock, "");
    stages[stage_key(t)].of_pipeline = true;
    if (t.parent.empty()) total += t.ms;
    cold = cold || t.cold;
  }
  // A phase seen in an earlier frame keeps its row's place (the spread's and the layered mode's "dof sat"):
  // the rows that one stage's phases hold in this frame are given to them in this frame's order.
  for (const auto& stage : timings) {
    if (!stage.parent.empty()) continue;
    std::vector<size_t> rows;
    std::vector<std::string> keys;
    for (const auto& t : timings) {
      if (t.parent != stage.name || std::find(keys.begin(), keys.end(), stage_key(t)) != keys.end()) continue;
      keys.push_back(stage_key(t));
      rows.push_back(
          size_t(std::find(stage_order.begin(), stage_order.end(), keys.back()) - stage_order.begin()));
    }
    std::sort(rows.begin(), rows.end());
    for (size_t i = 0; i < rows.size(); ++i) stage_order[rows[i]] = keys[i];
  }
  // Rows first seen now go before the display's rows (which a switch of kind put first).
  std::stable_partition(stage_order.begin(), stage_order.end(),
                        [&](const std::string& k) { return stages[k].of_pipeline; });
  if (cold) period_frames = 0;  // the frame period's EMA settles afresh
  if (!cold) frame_ms_history.push_back(float(total));  // the frame times of warm frames only
  while (frame_ms_history.size() > 120) frame_ms_history.pop_front();
}

}  // namespace satlab::gui
