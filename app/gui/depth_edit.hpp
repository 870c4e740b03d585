// The depth section's state (panel_depth.cpp, panel_brush.cpp; the session acts on it): where the raw
// depth came from, its refinement (a refiner of core/refine.hpp) and the depth brush.
#pragma once
#include <string>
#include <vector>

#include "core/depth_brush.hpp"
#include "core/guided_filter.hpp"
#include "core/refine.hpp"
#include "core/select.hpp"

namespace satlab::gui {

// Where the raw depth came from. Other sources set it through Session::set_depth (embedded: a depth map
// stored in the image file; stereo: disparity from a rectified pair).
enum class DepthSource { None, File, Embedded, Synthetic, Painted, Stereo, Selection };
const char* to_string(DepthSource s);
// The refiners' name for where depth came from (Painted: Brush; None: Synthetic, nothing to refine).
DepthOrigin origin_of(DepthSource s);

struct DepthEditState {
  DepthSource source = DepthSource::Synthetic;
  std::string source_detail;  // the file, or how it was made

  // Refinement of the raw (or painted) depth to the image's size along its edges, the image as the guide:
  // "auto" (the best refiner wherever the depth is not exact: smaller than the image, embedded, stereo,
  // painted), "none" (bilinear) or a refiner's name (app/ops/depth_refine.hpp).
  std::string refine = "auto";
  std::string resolved;     // what `refine` resolves to for the depth in use (set by the session)
  GuidedParams guided;      // the guided refiner's parameters
  std::string refine_note;  // the last refine: refiner, backend and its measured wall time
  std::string refine_summary;  // the same, short enough for the panel's line ("wmedian, cpu, 284.6 ms")

  // The brush: while `brush`, a drag on the image paints (no pan) and a click with `eyedropper` picks.
  bool brush = false;
  float size = 16.f;  // radius, image pixels
  float value = 0.f;  // depth painted, 0 near .. 1 far
  float feather = 0.5f;
  bool eyedropper = false;
  bool snap = true;   // strokes stop at the image's edges inside the brush (core/depth_brush.hpp, Snap)
  bool fill = false;  // the next click fills the region it lies in with the brush's depth
  bool painting = false;  // a stroke is being drawn (`current`)
  BrushStroke current;
  StrokeHistory history;

  // Subject select (S): while `subject`, a click on the image adds a subject there and a Shift+click marks
  // background (it takes back what it lies in); Ctrl+Z takes back the last click. The selection's depth
  // (core/select.hpp, app/ops/subject_select.hpp) becomes the depth in use, focused on the subject.
  bool subject = false;
  std::vector<SelectClick> clicks;
  SubjectLayout layout = SubjectLayout::Open;
  bool subject_changed = false;  // select again (or, without a subject click, drop the selection)
  std::string subject_note;      // the last selection: what ran, its time, and its note

  // Requests, handled by the session.
  bool changed = false;      // paint and refine again
  bool stroke_done = false;  // `current` is finished: into the history
  bool undo = false, redo = false, clear = false;
  bool save = false;  // save the depth in use: to save_field, or NAME.depth.png beside the image
  char save_field[1024] = {};
  std::string saved;  // the last file written
};

}  // namespace satlab::gui
