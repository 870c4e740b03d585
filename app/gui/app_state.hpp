// The one settings struct of the front end: panels read and write it, the main loop acts on it.
#pragma once
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "app/gui/export.hpp"
#include "core/params.hpp"
#include "core/pipeline.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab::gui {

enum class View { Result, Input, Depth, Coc };
const char* to_string(View v);
View view_from_string(const std::string& s);

struct StageStats {
  double ema_ms = 0;
  double last_ms = 0;
  double bytes = 0;
};

struct AppState {
  Params params;
  View view = View::Result;
  std::string backend = "auto";  // requested: auto | cpu | gpu
  bool show_ui = true;
  bool vsync = true;
  bool continuous = false;  // run the pipeline every frame (live timings), not only on changes
  SyntheticDepth synthetic;        // the depth map of images without one (panel_depth.cpp)
  bool synthetic_changed = false;  // the session regenerates it
  FilesState files;                // bundled scenes, presets, export (export.cpp)

  // What is loaded, for display.
  std::string image_path, depth_path, backend_name, backend_note, surface_name;
  std::string display_path;  // how the result reaches the screen (interop or host upload), and why
  int image_width = 0, image_height = 0;

  // Requests from the panels, handled by the loop.
  bool params_changed = true;
  bool backend_changed = false;
  std::string open_image, open_depth;
  char path_field[1024] = {};  // the scene panel's "open" text field
  std::string error;  // shown in a popup until dismissed
  std::string pixel_info;  // the image pixel under the cursor, for the status overlay
  float zoom = 1.f;        // the viewer's, for display

  // Timings of the last frames the pipeline ran.
  std::vector<std::string> stage_order;
  std::map<std::string, StageStats> stages;
  std::deque<float> frame_ms_history;
  int pipeline_runs = 0;
  void record(const std::vector<StageTiming>& timings);
};

}  // namespace satlab::gui
