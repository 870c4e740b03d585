// What the front end has open: the image, its depth map and the pipeline backend. Loading is
// transactional: a file that fails to load leaves everything as it was and throws satlab::Error.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/gui/app_state.hpp"
#include "app/gui/viewer.hpp"
#include "app/io/image_io.hpp"
#include "core/image.hpp"
#include "core/pipeline.hpp"

namespace satlab::gui {

class Session {
 public:
  // Opens the image (empty: the bundled scene) with its depth map; throws satlab::Error.
  void open(AppState& s, const std::string& image_path, const std::string& depth_path);
  void open_depth(AppState& s, const std::string& depth_path);  // throws satlab::Error
  // Regenerates the synthetic depth map from s.synthetic where no depth map file is open.
  void apply_synthetic_depth(AppState& s);  // throws satlab::Error
  void set_backend(AppState& s);                                // throws satlab::Error
  // Acts on what panels and the window asked for (files to open, backend switch); a failure goes to
  // s.error and changes nothing. Dropped files whose name contains "depth" are taken as depth maps.
  void handle_requests(AppState& s, const std::vector<std::string>& dropped);
  // Runs the pipeline if parameters or inputs changed (or every frame in continuous mode); returns true
  // when there is a new result. A failing run goes to s.error; a GPU backend that fails switches the
  // session to the CPU backend, which runs the frame instead.
  bool update(AppState& s);
  // Puts what `view` shows into its viewer texture: the result through the viewer's external writer
  // where one is set, else host copies; the SAT view computes the input's log SAT, the Diff view runs
  // the CPU backend on the current parameters and compares (s.diff_max, s.view_note). A failure (e.g.
  // an image larger than GL textures) goes to s.error.
  void show(AppState& s, Viewer& viewer, View view);

  const ImageRGBA8& input() const { return image_; }
  // The backend, for an external writer that takes the result from it on the device.
  Pipeline& pipeline() { return *pipeline_; }
  // Of the last run, empty before the first; fetched from the backend once per run.
  const ImageF& depth_normalised();
  const ImageF& coc();
  const ImageRGBA8& result();
  // The Diff view's per-pixel difference (levels) as last shown; empty before.
  const ImageF& difference() const { return difference_; }

  // Depth from another source (embedded in the image file, stereo): replaces the raw depth map (any size;
  // `confidence`: empty, or its size in [0,1]), drops the strokes, refines as s.depth_edit.refine says.
  // Throws satlab::Error on a bad confidence size.
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
  // The depth edit (depth_edit.hpp): undo/redo/clear/save requests, then paint and refine when needed.
  void handle_edit_requests(AppState& s);
  void apply_edit(AppState& s);  // throws satlab::Error
  void reset_edit(AppState& s, DepthSource source, const std::string& detail);  // a new raw depth
  ImageF base01_;  // depth_ normalised to [0,1] (zeros where there is none and strokes are painted)
  ImageF raw01_;   // raw_ normalised to [0,1] as base01_ is: what a refiner gets where no stroke is painted
  ImageF committed_;  // base01_ with the finished strokes
  ImageF painted_;    // committed_ with the stroke being drawn
  ImageF used_;       // what the pipeline was given by the edit (refined or painted); empty: the raw depth
  bool edit_dirty_ = false, strokes_dirty_ = false;
  double last_refine_ms_ = 0;  // a refine slower than kLiveRefineMs waits for the end of a stroke
  ImageF difference_;
  ImageF raw_depth_view_;             // of the last show(RawDepth)
  void open_truth_case(AppState& s);  // s.truth.open; throws satlab::Error, state unchanged
  void score_against_truth(AppState& s);
  ImageRGBA8 truth_;  // the loaded case's lens reference; empty: none
  ImageRGBA8 sat_view_;    // the SAT view's image, of image_
  int sat_view_mode_ = -1;  // s.sat_luminance it was made with; -1: none yet
};

}  // namespace satlab::gui
