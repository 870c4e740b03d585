// What the front end has open: the image, its depth map and the pipeline backend. Loading is
// transactional: a file that fails to load leaves everything as it was and throws satlab::Error.
#pragma once
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/gui/app_state.hpp"
#include "app/gui/viewer.hpp"
#include "app/io/image_io.hpp"
#include "core/image.hpp"
#include "core/pipeline.hpp"
#include "core/preview.hpp"

namespace satlab::gui {

// The near/far/disparity an embedded depth's range replaced, put back (s.saved_range); nothing where none was saved.
void restore_range(AppState& s);

// The focus-range strip's histogram of a depth map (session_preview.cpp).
std::vector<float> strip_histogram(const ImageF& depth);

class Session {
 public:
  Session() = default;
  ~Session();  // waits for a full frame on the worker thread
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  // Opens the image (empty: the bundled scene) with its depth map; throws satlab::Error.
  void open(AppState& s, const std::string& image_path, const std::string& depth_path);
  void open_depth(AppState& s, const std::string& depth_path);  // throws satlab::Error
  // A clip's first frame as the image (`name`: the clip, for display), with `raw` as its depth (any size;
  // empty: the synthetic depth) from `depth_name` (a depth clip, or ""). Throws satlab::Error, state unchanged.
  void open_clip(AppState& s, const std::string& name, ImageRGBA8 first, ImageF raw, const std::string& depth_name);
  // A later frame of the clip, the size of the image open: the backend, depth source, edit and parameters
  // stay; the pipeline is given the new image (and `raw`, where not empty: the frame's own depth, refined
  // as the depth section says). `frame` gets the image it replaces back, for the decoder to decode into
  // again. Throws satlab::Error for a frame of another size.
  void set_frame(AppState& s, ImageRGBA8& frame, ImageF raw, const DeviceRGBA* device = nullptr);
  // Regenerates the synthetic depth map from s.synthetic where no depth map file is open.
  void apply_synthetic_depth(AppState& s);  // throws satlab::Error
  void set_backend(AppState& s);                                // throws satlab::Error
  // Acts on what panels and the window asked for (files to open, backend switch); a failure goes to
  // s.error and changes nothing. Dropped files whose name contains "depth" are taken as depth maps.
  void handle_requests(AppState& s, const std::vector<std::string>& dropped);
  // Runs the pipeline if parameters or inputs changed (or every frame in continuous mode); returns true
  // when there is a new result. A failing run goes to s.error; a GPU backend that fails switches the
  // session to the CPU backend, which runs the frame instead.
  // Where the last full frame took longer than AppState::kFrameBudgetMs (and not in continuous mode), a
  // change renders a preview of the visible region (s.visible at s.display_scale; core/preview.hpp)
  // through a second pipeline, at the display's resolution or the largest power-of-2 fraction of it
  // whose estimated time fits the budget; once nothing is held (s.interacting false) the full frame
  // renders on a worker thread, and a later update() shows it when it is done (session_preview.cpp).
  // A new image's first frame does the same where its full frame is estimated over kFirstViewMs (from the
  // backend's last full frame per pixel, else kGuess*MsPerPx): the first view is a preview.
  bool update(AppState& s);
  static constexpr double kFirstViewMs = 250;
  static constexpr double kGuessCpuMsPerPx = 4e-4;  // 12 Mpx in 4.8 s: the CPU backend on 2 cores, dof
  static constexpr double kGuessGpuMsPerPx = 1e-6;
  // Waits for a full frame on the worker thread and shows it (a scripted run's last frame); true when
  // there is a new result.
  bool settle(AppState& s);
  // settle(), and where the result shown is still a preview, the full frame run now: for an export.
  void finish(AppState& s);
  // Puts what `view` shows into its viewer texture: the result through the viewer's external writer
  // where one is set, else host copies; the SAT view computes the input's log SAT, the Diff view runs
  // the CPU backend on the current parameters and compares (s.diff_max, s.view_note). A failure (e.g.
  // an image larger than GL textures) goes to s.error.
  void show(AppState& s, Viewer& viewer, View view);

  const ImageRGBA8& input() const { return image_; }
  // The backend, for an external writer that takes the result from it on the device (show() calls it
  // only while no worker thread renders on it).
  Pipeline& pipeline() { return *pipeline_; }
  // Of the last full run, empty before the first; fetched from the backend once per run. Empty as well
  // while the full frame renders on the worker thread or a preview is shown (the full run's would not be
  // what is on screen).
  const ImageF& depth_normalised();
  const ImageF& coc();
  const ImageRGBA8& result();
  // The normalised depth at image pixel (x, y): the full run's, else the preview's at that point (the
  // average over its footprint); false when neither is at hand.
  bool depth_at(int x, int y, float* d);
  // The Diff view's per-pixel difference (levels) as last shown; empty before.
  const ImageF& difference() const { return difference_; }

  // Depth from another source (embedded in the image file, stereo): replaces the raw depth map (any size;
  // `confidence`: empty, or its size in [0,1]), drops the strokes, refines as s.depth_edit.refine says.
  // Throws satlab::Error on a bad confidence size.
  // The depth of the subject selected by s.depth_edit.clicks (none with a subject click: the photo's own
  // depth again, synthetic or none).
  void select_subject(AppState& s);
  void note_first_view(AppState& s);  // once per open(): how long until its first result was shown
  void set_depth(AppState& s, ImageF raw, DepthSource source, const std::string& detail,
                 ImageF confidence = ImageF());
  // Depth from a rectified pair: the open image is the left view, `right_path` the right one; the
  // disparity (app/ops/stereo_matching.hpp) becomes the raw depth with Params::disparity on. Throws satlab::Error.
  void open_stereo(AppState& s, const std::string& right_path);
  // The depth in the edit domain [0,1]: what the pipeline was given while strokes or refinement apply,
  // else the raw depth normalised; and the depth before refinement (the raw-depth view: the raw depth
  // resampled bilinearly to the image, strokes included). Empty: none.
  const ImageF& edit_depth() const { return used_.empty() ? base01_ : used_; }
  const ImageF& depth_before_refine() const { return painted_.empty() ? base01_ : painted_; }
  // The raw depth the full pipeline has, the image's size (the edit's where one applies); empty: none.
  const ImageF& pipeline_depth() const { return used_.empty() ? depth_ : used_; }
  // The file of an image opened as an overview (too large to display or decode whole); "" otherwise.
  const std::string& large_path() const { return large_.path; }
  // What the raw-depth view showed last: depth_before_refine() on the depth view's scale (edit_depth()'s
  // min and max map to 0 and 1 as the pipeline maps them; view_images.hpp). Empty: not shown yet, or none.
  const ImageF& raw_depth_view() const { return raw_depth_view_; }
  // edit_depth() as a 16-bit PNG: to s.depth_edit.save_field, else NAME.depth.png beside the image.
  void save_depth(AppState& s);  // throws satlab::Error

 private:
  void load(AppState& s, ImageRGBA8 image, ImageF depth);  // throws satlab::Error, state unchanged
  bool fall_back_to_cpu(AppState& s, const std::string& why);  // after a GPU error in update()
  ImageRGBA8 image_;
  ImageF raw_;               // the raw depth at its own size (a phone's or a small file's is smaller)
  ImageF raw_confidence_;    // of raw_ (stereo: its checks); empty: all 1
  ImageF depth_;             // raw_ resampled bilinearly to the image: the pipeline's depth without an edit
  io::LoadInfo image_info_;  // how image_ was loaded (orientation, for its depth map)
  std::unique_ptr<Pipeline> pipeline_;
  std::string backend_;  // what pipeline_ was made for: auto | cpu | gpu
  bool has_result_ = false;
  const ImageF* depth_normalised_ = nullptr;  // valid until the next run
  const ImageF* coc_ = nullptr;
  const ImageRGBA8* result_ = nullptr;
  ImageF difference_to_reference(AppState& s);  // for the Diff view

  // The preview and the full frame on the worker thread (session_preview.cpp).
  bool run_full(AppState& s);  // on this thread; true when there is a new result
  void show_full(AppState& s, double ms, unsigned generation);  // the full pipeline's last run is shown
  bool want_preview(const AppState& s) const;
  void run_preview(AppState& s);  // throws satlab::Error
  void start_full(AppState& s);   // on the worker thread, unless one runs
  // A full frame the worker finished (wait: waits for it): recorded, and shown when its parameters are
  // still those asked for; true then.
  bool collect_full(AppState& s, bool wait);
  void discard_worker();        // waits for the worker and forgets its frame (a new backend)
  Pipeline& full(AppState& s);  // pipeline_, once the worker is done with it
  void give_depth(AppState& s, const ImageF& depth);  // to the full pipeline
  void upload_preview(ViewerTexture& t, View view);
  std::unique_ptr<Pipeline> preview_;
  PreviewPlan preview_plan_;  // of the inputs preview_ holds
  // The image_inputs_ and inputs_ the preview's image, depth and whole-frame statistics were made from.
  unsigned preview_image_ = ~0u, preview_depth_ = ~0u, preview_stats_ = ~0u;
  unsigned image_inputs_ = 0;  // bumps with every image given to the full pipeline
  unsigned inputs_ = 0;        // bumps with every image or depth given to the full pipeline
  PixelRect preview_visible_;  // what the last preview was made for
  double preview_display_scale_ = 0;
  int preview_level_ = 0;         // resolution: the display's / 2^level
  double preview_ms_per_px_ = 0;  // of the warm preview runs (0: none yet)
  bool preview_failed_ = false;   // a preview failed: full frames only, until another image or backend
  bool showing_preview_ = false;
  bool unseen_ = false;             // a new result (full or preview) that update() has not reported yet
  unsigned generation_ = 0;         // bumps with every change a run must follow
  unsigned full_generation_ = ~0u;  // of the full pipeline's result
  double last_full_ms_ = -1;        // wall clock of the last full run (-1: none since the backend was made);
                                    // after a load, the estimate full_ms_per_px_ gives for the new image
  // Wall ms per pixel of the last full run on each backend ("cpu", "gpu"), kept across images: the first
  // frame of a new image is estimated from it (before any run: kGuessMsPerPx).
  std::map<std::string, double> full_ms_per_px_;
  int first_view_waits_ = 0;  // frames a new image waited for the viewer's first draw of it
  // When open() began (decoding included), until the first result of its image is shown.
  std::chrono::steady_clock::time_point opened_at_{};
  bool first_view_pending_ = false;
  struct Worker {
    std::thread thread;
    std::atomic<bool> done{false};
    bool active = false;
    std::string error;
    double ms = 0;
    unsigned generation = 0;
  } worker_;
  // An image too large for one texture or for a whole decode within the memory budget
  // (session_large.cpp): image_ is its overview (every factor x factor block of the file averaged, read
  // by rows), the full pipeline filters the overview with the parameters scaled to it, and a view zoomed
  // past the overview's pixels shows the visible region decoded from the file at the display's
  // resolution (a power-of-2 fraction of the file's), filtered by the preview's pipeline.
  struct Large {
    std::string path;
    uint32_t width = 0, height = 0;  // the file's
    uint32_t factor = 0;             // file pixels per overview pixel, a side; 0: not opened as an overview
  } large_;
  // Opens `path` as an overview where it is too large; false (nothing done) where it is not.
  bool open_large(AppState& s, const std::string& path);
  bool update_large(AppState& s);  // update() for an overview
  void run_detail(AppState& s);    // throws satlab::Error
  Params frame_params(const AppState& s) const;  // s.params, scaled to the overview for one
  PixelRect detail_region_;                      // file pixels of the last detail (its inputs)
  uint32_t detail_factor_ = 0;                   // file pixels per detail pixel, a side
  // The depth edit (depth_edit.hpp): undo/redo/clear/save requests, then paint and refine when needed.
  void handle_edit_requests(AppState& s);
  void apply_edit(AppState& s);  // throws satlab::Error
  void reset_edit(AppState& s, DepthSource source, const std::string& detail);  // a new raw depth
  ImageF base01_;  // depth_ normalised to [0,1] (zeros where there is none and strokes are painted)
  ImageF raw01_;   // raw_ normalised to [0,1] as base01_ is: what a refiner gets where no stroke is painted
  ImageF refined_;          // raw01_ refined to the image's size (empty: not refined), under the strokes
  std::string refined_key_;  // the refiner and parameters refined_ was made with
  ImageF committed_;        // refined_ (or base01_) with the finished strokes
  ImageF raw_committed_;    // base01_ with the finished strokes, where refined_ is under committed_
  ImageF painted_;          // the strokes (the one being drawn too) over the unrefined depth: the raw view
  LiveStroke live_;         // the stroke being drawn, painted onto used_ (and painted_) as it grows
  bool live_valid_ = false; // used_ and painted_ hold committed_ and raw_committed_ under live_'s segments
  ImageF used_;       // what the pipeline was given by the edit (refined or painted); empty: the raw depth
  bool edit_dirty_ = false, strokes_dirty_ = false;
  double last_refine_ms_ = 0;  // the last refine's wall time
  ImageF difference_;
  ImageF raw_depth_view_;             // of the last show(RawDepth)
  void open_truth_case(AppState& s);  // s.truth.open; throws satlab::Error, state unchanged
  void score_against_truth(AppState& s);
  ImageRGBA8 truth_;  // the loaded case's lens reference; empty: none
  ImageRGBA8 sat_view_;    // the SAT view's image, of image_
  int sat_view_mode_ = -1;  // s.sat_luminance it was made with; -1: none yet
};

}  // namespace satlab::gui
