// The Timings panel's numbers, apart from ImGui (panel_timings.cpp draws them, tests check them): the rows
// in display order, which of them add up to the total, and the GB/s and fraction of C each may show.
//   - The total adds the warm stages of the frame (phases lie within their stage). A row that is host time
//     spent waiting for GPU work the rows above already time ("wait for GPU"), or work that does not run
//     every frame, is shown apart (StageStats::apart), in no total: the total is the time the frame's work
//     takes, within the frame period. A display stage's first run is cold, as a pipeline stage's.
//   - The fraction of C is given for a warm GPU pipeline stage whose bytes model names the bytes it must
//     move through DRAM (StageTiming::bytes; 0: none). Where that model claims more than C could move in
//     the time, it counts bytes the L2 serves: no GB/s and no fraction are shown, and the row says so.
#pragma once
#include <string>
#include <vector>

#include "app/gui/app_state.hpp"

namespace satlab::gui {

struct TimingRow {
  std::string key;                // its entry in AppState::stages
  bool warm = false;              // a warm measurement of the last frame
  bool in_total = false;          // one of the rows the total adds
  double gbps = 0;                // 0: none shown
  double of_c = 0;                // fraction of C, in (0, 1]; 0: none shown
  bool bytes_over_c = false;      // the bytes model claims more than C: neither GB/s nor fraction shown
  double share = 0;               // of the total (warm rows only)
};

struct TimingTable {
  std::vector<TimingRow> rows;  // each stage followed by its phases
  double total_ms = 0;          // the rows with in_total
  bool partial = false;         // a pipeline stage of the last frame was cold or not run
  bool period_settled = false;  // the frame period's EMA holds only frames after the last cold run
};

TimingTable timing_table(const AppState& s);

}  // namespace satlab::gui
