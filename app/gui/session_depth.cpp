// The session's depth edit (depth_edit.hpp): the raw depth refined to the image's size by the refiner
// chosen (app/ops/depth_refine.hpp: auto is the best one wherever the depth is not exact; GPU where
// available, else CPU), strokes painted over it at full resolution (CPU rasterisation, core/depth_brush:
// stopping at the image's edges), given to the pipeline; saving what the pipeline was given as a 16-bit PNG.
#include <algorithm>
#include <cstdio>
#include <string>

#include "app/gui/session.hpp"
#include "app/io/image_io.hpp"
#include "app/ops/depth_refine.hpp"
#include "app/ops/subject_select.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"
#include "core/refine.hpp"

namespace satlab::gui {
namespace {

// The raw depth in [0,1]: as it is when it lies there already (a saved depth map reloads unchanged), else
// normalised by its min and max.
ImageF to_unit(const ImageF& raw) {
  for (float v : raw.data)
    if (!(v >= 0.f && v <= 1.f)) return normalise_depth(raw);
  return raw;
}

// NAME.depth.png beside IMAGE (NAME: the image's file name without its extension).
std::string beside(const std::string& image_path) {
  const size_t slash = image_path.find_last_of('/');
  const size_t dot = image_path.find_last_of('.');
  const std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash)
                               ? image_path.substr(0, dot)
                               : image_path;
  return stem + ".depth.png";
}

}  // namespace

void Session::reset_edit(AppState& s, DepthSource source, const std::string& detail) {
  DepthEditState& e = s.depth_edit;
  e.history.clear();
  e.painting = e.stroke_done = false;
  e.source = source;
  e.source_detail = detail;
  base01_ = depth_.empty() ? ImageF() : to_unit(depth_);
  raw01_ = raw_.empty() ? ImageF() : to_unit(raw_);
  last_refine_ms_ = 0;
  committed_ = painted_ = raw_committed_ = refined_ = ImageF();
  strokes_dirty_ = edit_dirty_ = true;
  // used_ stays until apply_edit: it tells whether the pipeline holds an edit to take back.
}

void Session::set_depth(AppState& s, ImageF raw, DepthSource source, const std::string& detail,
                        ImageF confidence) {
  if (raw.empty() || raw.channels != 1) throw Error("depth: not a depth map (1 channel)");
  if (!confidence.empty() && (confidence.width != raw.width || confidence.height != raw.height))
    throw Error("depth confidence " + std::to_string(confidence.width) + "x" +
                std::to_string(confidence.height) + " does not fit the depth " + std::to_string(raw.width) +
                "x" + std::to_string(raw.height));
  ImageF depth = io::resample_depth(raw, image_.width, image_.height);
  give_depth(s, depth);
  depth_ = std::move(depth);
  raw_ = std::move(raw);
  raw_confidence_ = std::move(confidence);
  s.depth_path.clear();
  s.params_changed = true;
  used_ = ImageF();
  reset_edit(s, source, detail);
}

void Session::select_subject(AppState& s) {
  DepthEditState& e = s.depth_edit;
  if (large_.factor) throw Error("subject select needs the whole image: " + large_.path + " is open as an overview");
  if (std::none_of(e.clicks.begin(), e.clicks.end(), [](const SelectClick& c) { return !c.background; })) {
    e.subject_note = e.clicks.empty() ? "" : "click on the subject first";
    if (e.source == DepthSource::Selection) apply_synthetic_depth(s);  // the selection is taken back
    return;
  }
  SubjectDepth d = subject_depth(image_, e.clicks, e.layout, backend_);
  e.subject_note = d.summary() + (d.selection.note.empty() ? "" : "; " + d.selection.note);
  const std::string detail = std::to_string(e.clicks.size()) + " click(s), layout " + to_string(e.layout);
  set_depth(s, std::move(d.depth), DepthSource::Selection, detail);
  s.params.focus = d.focus;
  s.params_changed = true;
}

void Session::handle_edit_requests(AppState& s) {
  DepthEditState& e = s.depth_edit;
  // The live stroke's coverage buffer (the image's size) is made when the brush is picked up, not in the
  // frame of the first stroke (39 ms at 12 Mpx on the GPU machine's CPU: docs/performance.md).
  if (e.brush && !image_.empty()) live_.prepare(image_.width, image_.height);
  if (e.subject_changed) {
    e.subject_changed = false;
    select_subject(s);
  }
  if (e.stroke_done) {
    e.history.push(e.current);
    e.painting = e.stroke_done = false;
    strokes_dirty_ = true;
  }
  if (e.undo) strokes_dirty_ |= e.history.undo();
  if (e.redo) strokes_dirty_ |= e.history.redo();
  if (e.clear && !e.history.strokes().empty()) e.history.clear(), strokes_dirty_ = true;
  if (strokes_dirty_ || e.changed) edit_dirty_ = true;
  e.undo = e.redo = e.clear = e.changed = false;
  if (edit_dirty_ && !image_.empty()) apply_edit(s);
  if (e.save) {
    e.save = false;
    save_depth(s);
  }
}

void Session::apply_edit(AppState& s) {
  edit_dirty_ = false;
  DepthEditState& e = s.depth_edit;
  const bool strokes = !e.history.strokes().empty() || e.painting;
  // No strokes: nothing to repaint. Left set, strokes_dirty_ would mark the edit dirty again at every
  // frame, and the refiner and a pipeline run would follow at every frame with no input.
  if (!strokes) strokes_dirty_ = false;
  // The raw depth is refined to the image's size (at its own size: a phone's map is a fraction of the
  // image's); strokes are painted over that at full resolution, stopping at the image's edges, and are
  // not refined: no cell of a refiner's grid turns a stroke's edge into a staircase.
  e.resolved = raw_.empty() ? std::string() : resolved_refiner(e.refine, origin_of(e.source), image_, raw_);
  const bool refine = !e.resolved.empty() && e.resolved != "none";
  if (!strokes && !refine) {  // no edit: the pipeline has (or gets back) the raw depth, resampled
    painted_ = committed_ = refined_ = ImageF();
    e.refine_note.clear(), e.refine_summary.clear();
    if (used_.empty()) return;
    used_ = ImageF();
    if (depth_.empty())
      load(s, image_, ImageF());
    else
      give_depth(s, depth_);
    edit_dirty_ = false;
    s.params_changed = true;
    return;
  }
  // The guided filter's own parameters only where they were changed: else core's `guided` as it is.
  const GuidedParams d;
  const bool tuned = e.guided.radius != d.radius || e.guided.eps != d.eps || e.guided.gray != d.gray;
  char key[96];
  std::snprintf(key, sizeof(key), "%s r%d e%g g%d", e.resolved.c_str(), e.guided.radius, double(e.guided.eps),
                int(e.guided.gray));
  if (refine && (refined_.empty() || refined_key_ != key)) {
    const ImageF* confidence = raw_confidence_.empty() ? nullptr : &raw_confidence_;
    RefinedDepth r = refine_for_image(image_, raw01_, confidence, e.resolved, origin_of(e.source),
                                      s.backend == "cpu" ? "cpu" : "auto", tuned ? &e.guided : nullptr);
    char note[160];
    std::snprintf(note, sizeof(note), "%s on %s, %.1f ms wall (transfers included)", r.refiner.c_str(),
                  r.backend.c_str(), r.ms);
    e.refine_note = note;
    std::snprintf(note, sizeof(note), "%s, %s, %.1f ms", r.refiner.c_str(), r.backend.c_str(), r.ms);
    e.refine_summary = note;
    s.record_stage({"depth refine", r.ms, 0, ""},
                   r.backend == "gpu" ? "wall clock (GPU, transfers included)" : "wall clock (CPU)",
                   "it runs when the depth or its refiner changes, not every frame");
    refined_ = std::move(r.depth);
    refined_key_ = key;
    last_refine_ms_ = r.ms;
    strokes_dirty_ = true;  // repainted over the new depth
  }
  if (!refine) {
    refined_ = ImageF();
    e.refine_note.clear(), e.refine_summary.clear();
  }
  if (strokes) {
    if (base01_.empty()) base01_ = ImageF(image_.width, image_.height, 1);  // strokes on no depth: all near
    const ImageF& under = refine ? refined_ : base01_;
    if (strokes_dirty_ || committed_.empty()) {  // each stroke's coverage once, onto both depths
      committed_ = under;
      raw_committed_ = refine ? base01_ : ImageF();
      if (refine) e.history.paint_onto({&committed_, &raw_committed_}, &image_);
      else e.history.paint_onto({&committed_}, &image_);
      strokes_dirty_ = false;
      live_valid_ = false;
    }
    // The stroke being drawn: painted segment by segment onto copies of the committed depths made when
    // it started, so a frame costs the stroke's new segments (docs/performance.md, brush).
    if (!e.painting || !live_valid_) {
      used_ = committed_;
      painted_ = refine ? raw_committed_ : ImageF();  // the raw depth view: strokes over the unrefined depth
      live_.reset();
      live_valid_ = e.painting;
    }
    if (e.painting) {
      std::vector<LiveStroke::Layer> layers = {{&committed_, &used_}};
      if (refine) layers.push_back({&raw_committed_, &painted_});
      live_.extend(e.current, &image_, layers);
    }
    if (!refine) painted_ = used_;
  } else {
    painted_ = committed_ = raw_committed_ = ImageF();
    used_ = refined_;
  }
  give_depth(s, used_);
  s.params_changed = true;
}

void Session::save_depth(AppState& s) {
  const ImageF& d = edit_depth();
  if (d.empty()) throw Error("no depth map to save (synthetic depth is off)");
  DepthEditState& e = s.depth_edit;
  const std::string path = e.save_field[0] ? std::string(e.save_field) : beside(s.image_path);
  io::save_png16(path, d);
  e.saved = path;
}

}  // namespace satlab::gui
