// The Files section: the bundled scenes, presets (save/load as JSON) and export of what is on screen at
// native resolution: the result (PNG), the normalised depth (16-bit PNG), the signed CoC (the CoC view's
// colour map: warm in front of the focus plane, cool behind) and the timings (CSV and JSON). Names come
// from the image and the parameters (coffee_dof_f0.20_a40_r24.png); a name that is taken is overwritten
// only after a confirmation, otherwise the next free one (coffee_dof_f0.20_a40_r24-2.png) is used.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/io/output_names.hpp"

namespace satlab::gui {

struct AppState;
class Session;
class StreamExport;

struct FilesState {
  char folder[1024] = ".";                                       // where exports go
  char preset_path[1024] = "satlab-preset.json";                 // the preset file to save or load
  bool result = true, depth = true, coc = true, timings = true;  // what an export writes
  // Requests from the panel, handled by handle_file_requests.
  bool export_requested = false, save_preset = false, load_preset = false;
  io::WhenTaken taken = io::WhenTaken::Ask;  // names already in use: ask, or the user's answer
  std::vector<std::string> existing;  // what an export would overwrite: the confirm popup lists them
  std::string message;                // what the last action wrote
  std::vector<std::string> scenes;    // the bundled scenes' images, listed once
  bool scenes_listed = false;
  // The result being written at full resolution on its own thread (export_stream.hpp); null: none. The
  // other files of that export are written already (others).
  std::shared_ptr<StreamExport> job;
  std::vector<std::string> others;
  bool cancel_requested = false;  // the Cancel button or Esc
  // Set when collect_export saw the job end (written, cancelled or failed), with the files it wrote:
  // scripted runs print them on the frame it ended, whenever that is (report_ended_export in gui.cpp).
  bool ended = false;
  std::vector<std::string> ended_files;
  uint32_t max_tile = 0;          // tests: the export's largest tile side, written by rows (--export-tile)
  int band_delay_ms = 0;          // tests: a pause after each band of the export (--export-band-delay)
};

void draw_files_panel(AppState& s);
// While an export runs: its progress bar (rows done) and a Cancel button, at the bottom of the image area
// whether the panels are shown or not.
void draw_export_progress(AppState& s, float x, float bottom, float width);
// Acts on the Files panel's requests; failures go to s.error and change nothing.
void handle_file_requests(AppState& s, Session& session);

// Writes the chosen exports into `folder` under the next free base name and waits for the result's;
// returns the files written. Throws satlab::Error (files written before the failure stay, each complete).
std::vector<std::string> export_next_free(AppState& s, Session& session, const std::string& folder);
// The running export, when done (or with `wait`, once done): its message, or its failure in s.error;
// returns what it wrote (empty: nothing, or none ran).
std::vector<std::string> collect_export(AppState& s, bool wait);
// Applies a preset file to s (params, synthetic depth, view) or throws satlab::Error leaving s untouched.
void apply_preset_file(AppState& s, const std::string& path);
void save_preset_file(const AppState& s, const std::string& path);  // throws satlab::Error

}  // namespace satlab::gui
