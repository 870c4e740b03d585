// The one settings struct of the front end: panels read and write it, the main loop acts on it.
#pragma once
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "app/gui/depth_edit.hpp"
#include "app/gui/export.hpp"
#include "app/gui/playback.hpp"
#include "app/io/dir_listing.hpp"
#include "app/io/ground_truth.hpp"
#include "core/params.hpp"
#include "core/pipeline.hpp"
#include "core/preview.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab::gui {

// Diff: difference against the CPU reference; RawDepth: the depth before refinement (painted strokes
// included); Truth: the thin-lens reference of a ground-truth case.
enum class View { Result, Input, Depth, Coc, Sat, Diff, RawDepth, Truth };
constexpr int kViewCount = 8;
const char* to_string(View v);
View view_from_string(const std::string& s);

// Compare modes: the image area shows compare_view on the left and view on the right, either wiped at a
// draggable divider (Split) or in two halves (SideBySide); zoom and pan are shared by both.
enum class Compare { Off, Split, SideBySide };
const char* to_string(Compare c);
// "off", "split", "split:0.3" (divider at 30% of the width), "side"; throws satlab::Error otherwise.
Compare compare_from_string(const std::string& s, float* split);

// The file browser's state (panel_browser.cpp).
struct BrowserState {
  std::string dir;  // empty until first opened: then the folder of the open image
  io::FileFilter filter = io::FileFilter::Images;
  bool show_hidden = false;
  bool stale = true;  // list `dir` again
  io::DirListing listing;
  std::string selected;  // a file name in `dir`
  io::RecentFiles recent{io::RecentFiles::default_path()};
  bool recent_loaded = false;
  std::string recent_image, recent_depth;  // the paths last added to `recent`
  std::string note;  // why the recent list could not be read or saved
};

// The ground-truth cases (assets/ground_truth/cases.json): loading one opens its image and depth, sets
// the case's focus, aperture, max radius and depth range, and gives the Truth view its lens reference.
struct TruthState {
  std::vector<io::TruthCase> cases;  // listed once
  bool listed = false;
  std::string note;    // why there are none
  std::string open;    // request: the case to load, by name
  std::string loaded;  // the case whose reference the Truth view shows; "" none (another image opened)
  std::string score;   // the last result against the reference: PSNR and SSIM, whole and band
};

// A stage's timings. Only warm runs count in ema_ms, history and the medians of scripted runs: a cold run
// (StageTiming::cold: the first after a new backend, image size or variant) starts them afresh and is kept
// apart in cold_ms.
struct StageStats {
  double ema_ms = 0;   // of the warm runs since the last cold one
  double last_ms = 0;  // the last warm run
  double cold_ms = 0;  // the last cold run
  int warm_runs = 0;   // warm runs in ema_ms (history keeps the last 120)
  bool cold = false;   // its last run was cold
  double bytes = 0;
  std::string parent;                   // "" for a stage of the frame, else the stage this is a phase of
  bool concurrent = false;              // a phase on a side stream, beside its siblings (StageTiming)
  // Why the row is in no total ("" for none): host time spent waiting for GPU work that other rows time
  // (the pipeline's kernels before the result's copy), which the total would count twice, or work that does
  // not run every frame (the depth refinement).
  std::string apart;
  std::string clock;                    // how it was timed: "CUDA events", "GL timer query", ...
  std::deque<float> history;            // the last runs' ms, for the plot
  bool of_pipeline = false;             // a pipeline stage (else a display stage: map, write, draw, ...)
  // Reported by the last pipeline run. Stages the last run skipped (the first frame's upload; the reduce
  // and SAT the GPU keeps while their inputs are unchanged, unless "run every frame") show as not run and
  // count in no total.
  bool current = true;
  // What a row shows: Warm (ema_ms), Cold (cold_ms, marked, in no total), NotRun.
  enum class State { Warm, Cold, NotRun };
  State state() const { return !current ? State::NotRun : cold ? State::Cold : State::Warm; }
};

// What a pipeline run rendered: the full frame, or a preview (core/preview.hpp) of the visible region at
// the display's resolution (or a power-of-2 fraction of it, to fit the frame budget).
struct RunInfo {
  bool preview = false;
  int width = 0, height = 0;              // the frame rendered
  int image_width = 0, image_height = 0;  // of the image
  PixelRect source;                       // a preview's image pixels (the visible ones and a halo)
  double scale = 1;                       // a preview's pixels per image pixel
  int level = 0;                          // a preview's resolution: the display's / 2^level
  double ms = 0;                          // wall clock of the run
  bool cold = false;                      // a stage of it ran cold
};

// The pipeline's timings of one kind of run (full or preview): rows, averages, history, the last run.
struct TimingSet {
  std::vector<std::string> stage_order;
  std::map<std::string, StageStats> stages;
  std::deque<float> frame_ms_history;
  unsigned long last_recorded_run = 0;
};

struct AppState {
  Params params;
  View view = View::Result;
  Compare compare = Compare::Off;
  View compare_view = View::Input;  // the left side of a compare
  float split = 0.5f;               // the divider of Split, as a fraction of the image area's width
  bool sat_luminance = true;        // SAT view: log SAT of the luminance (colour-mapped), else per channel
  float diff_max = 0;               // largest difference (levels) in the Diff view, for its legend
  std::string view_note;            // what the Diff view compared, shown under the view name
  bool show_help = false;           // the key table overlay
  bool show_browser = false;        // the file browser window
  bool sweeping = false;            // the focus sweep animation runs
  float sweep_dir = 1.f;            // +1 towards far, -1 towards near
  bool divider_drag = false;        // the Split divider is being dragged
  BrowserState browser;
  std::string backend = "auto";  // requested: auto | cpu | gpu
  bool show_ui = true;
  bool vsync = true;
  bool continuous = false;  // run the pipeline every frame (live timings), not only on changes
  SyntheticDepth synthetic;        // the depth map of images without one (panel_depth.cpp)
  DepthEditState depth_edit;       // source, refinement and brush (panel_depth.cpp, panel_brush.cpp)
  bool synthetic_changed = false;  // the session regenerates it
  FilesState files;                // bundled scenes, presets, export (export.cpp)
  TruthState truth;                // ground-truth cases (panel_truth.cpp)
  ClipState clip;                  // a video or sequence open (playback.hpp)

  // What is loaded, for display.
  std::string image_path, depth_path, backend_name, backend_note, surface_name;
  std::string depth_source;  // embedded depth: what was read ("embedded GDepth RangeInverse near ..."), or why not
  // near/far/disparity as they were before an embedded depth's range replaced them; put back when a depth
  // without that range takes over (another image, a depth map file, synthetic depth).
  struct SavedRange {
    bool active = false;
    float near_depth = 0, far_depth = 0;
    bool disparity = false;
  } saved_range;
  std::vector<std::string> load_notes;  // what the loaders did with the open files (orientation, ICC, ...)
  std::string display_path;  // how the result reaches the screen (interop or host upload), and why
  const char* viewer_pass = "";  // how the viewer's last draw reached the framebuffer (Viewer::pass_name)
  int image_width = 0, image_height = 0;

  // Requests from the panels, handled by the loop.
  bool params_changed = true;
  bool backend_changed = false;
  std::string open_image, open_depth;
  char path_field[1024] = {};  // the scene panel's "open" text field
  std::string error;  // shown in a popup until dismissed
  std::string pixel_info;  // the image pixel under the cursor, for the status overlay
  float zoom = 1.f;        // the viewer's framebuffer pixels per image pixel, for display (1: 100%)
  bool zoom_fit = true;    // the viewer fits the image to its pane
  double first_view_ms = 0;  // the last open's first result on screen, ms after the open began (host clock)

  // SAT builder and min/max reduction: what the backend offers, the selection (a panel changes it and
  // sets algorithms_changed; the session applies it, or puts back what runs).
  std::vector<std::string> sat_builders, reductions;
  Algorithms algorithms;
  bool algorithms_changed = false;

  // The open image (owned by the session; null before one is open), and a counter that changes with it.
  const ImageRGBA8* image = nullptr;
  unsigned image_generation = 0;

  // C: device-to-device copy bandwidth (GB/s, read + written) measured once at start-up, the yardstick of
  // the GB/s columns; copy_note says why there is none.
  double copy_gbps = 0;
  std::string copy_note;
  double frame_period_ms = 0;  // wall clock from one frame's start to the next (EMA)
  // Frames in that EMA since the last cold pipeline run (which restarts the count): below
  // kPeriodSettleFrames, cold frames still weigh in it (0.9^30 = 4%) and the panel says so.
  int period_frames = 0;
  static constexpr int kPeriodSettleFrames = 30;

  // "Compare all SAT builders": whether its round-robin runs, and its table as text (for scripted runs).
  bool compare_running = false;
  std::string compare_table;
  // The Lab: a run asked for on the command line (reduce|scan[:LOG2N[:TYPE]], done on the first frame the
  // panel is drawn), and its table as text (for scripted runs).
  std::string lab_request;
  std::string lab_table;

  // What the backend's highlight pass found in its last completed frame with highlights on (Filter panel).
  HighlightStats highlights;

  // The preview (Session::update): while a widget is held (a slider dragged) or the focus sweeps, and for
  // any change at all, a frame whose full run took longer than the budget is first rendered as a preview
  // of the visible region at the display's resolution; the full frame follows on a worker thread once
  // nothing is held, and replaces the preview when it is done (unless the parameters changed meanwhile).
  static constexpr double kFrameBudgetMs = 50;  // the pipeline's share of a frame: 20 frames a second
  bool interacting = false;      // a widget is held or the focus sweeps (set by the main loop each frame)
  PixelRect visible;             // the image pixels the viewer showed last; empty before its first draw
  double display_scale = 0;      // its screen pixels per image pixel (0: not drawn yet)
  RunInfo last_run;              // what the timings shown are of
  RunInfo last_full;             // the last full run
  bool showing_preview = false;  // the result, depth and CoC views show a preview
  // The pipeline depth's histogram over its own [min, max], kDepthStrip bins summing to 1, under the
  // focus-range handles (panel_params.cpp); empty: no depth yet.
  static constexpr int kDepthStrip = 96;
  std::vector<float> depth_histogram;
  bool full_running = false;     // the full frame renders on a worker thread
  int preview_runs = 0;
  std::string frame_note;  // what the pipeline did this frame (scripted runs print it); cleared each frame
  // Images larger than this a side (GL_MAX_TEXTURE_SIZE, or --max-texture for tests) open as an overview
  // (Session::open_large); 0: not known yet. resolution_note says what the views show of one.
  int max_texture = 0;
  std::string resolution_note;

  // Timings of the last frames: the pipeline's stages (and phases), then the display's (interop map,
  // write, unmap; draw; ui). They are those of the kind of run last shown (last_run.preview); the other
  // kind's pipeline rows wait in `parked`, and the display's rows move with the shown kind.
  std::vector<std::string> stage_order;
  std::map<std::string, StageStats> stages;
  std::deque<float> frame_ms_history;  // the pipeline's frame time (stages without a parent)
  int pipeline_runs = 0;  // the session's runs of the pipeline
  unsigned long last_recorded_run = 0;  // StageTiming::run of the last recorded timings (each counts once)
  // One run's timings (Pipeline::timings()); the run already recorded is ignored, so callers may pass the
  // backend's timings every frame.
  void record(const std::vector<StageTiming>& timings);
  // One display stage (its first run is cold: shader compiles, allocations); `apart`: see StageStats::apart.
  void record_stage(const StageTiming& t, const char* clock, const char* apart = "");
  static std::string stage_key(const StageTiming& t);          // its row: "dof sat" for dof's phase "sat"
  void clear_timings();  // a new backend: its runs count from 1 again
  // Makes the timings of the full frame (false) or the preview (true) the ones shown and recorded into.
  void show_timings_of(bool preview);
  // Records a run of the other kind than shown without showing it (a full run whose result is stale).
  void record_apart(bool preview, const std::vector<StageTiming>& timings);
  bool timings_of_preview = false;
  TimingSet parked;  // the pipeline rows of the kind not shown

 private:
  void record_timing(const StageTiming& t, const char* clock, const char* apart);
};

}  // namespace satlab::gui
