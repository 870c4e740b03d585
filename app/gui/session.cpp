#include "app/gui/session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

#include "app/gui/view_images.hpp"
#include "app/io/assets.hpp"
#include "app/io/embedded_depth.hpp"
#include "app/io/exr.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "app/ops/backend_choice.hpp"
#include "core/error.hpp"
#include "core/quality.hpp"

namespace satlab::gui {
namespace {

const ImageF kNone;

}  // namespace

void restore_range(AppState& s) {
  if (!s.saved_range.active) return;
  s.params.near_depth = s.saved_range.near_depth;
  s.params.far_depth = s.saved_range.far_depth;
  s.params.disparity = s.saved_range.disparity;
  s.saved_range.active = false;
}

// A fresh backend per image as well: the Pipeline interface cannot forget a depth map, and timings of
// another image size would not compare anyway. Nothing is replaced until the new one has accepted all.
void Session::load(AppState& s, ImageRGBA8 image, ImageF depth) {
  discard_worker();
  std::string note;
  auto p = make_backend(s.backend, &note);
  // The SAT builder and reduction chosen so far, where this backend has them; else its defaults.
  auto offered = [](const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end() ? n : std::string();
  };
  p->set_algorithms({offered(p->sat_builders(), s.algorithms.sat_builder),
                     offered(p->reductions(), s.algorithms.reduction)});
  if (!image.empty()) {
    p->set_image(image);
    if (!depth.empty()) p->set_depth(depth);
  }
  s.depth_histogram = strip_histogram(depth);
  pipeline_ = std::move(p);
  backend_ = s.backend;
  image_ = std::move(image);
  depth_ = std::move(depth);
  preview_.reset();
  preview_failed_ = showing_preview_ = s.showing_preview = false;
  preview_ms_per_px_ = 0, preview_level_ = 0;
  last_full_ms_ = -1;
  if (!image_.empty()) {  // the new image's full frame, estimated: over kFirstViewMs, a preview comes first
    const std::string kind = pipeline_->backend_name().rfind("cpu", 0) == 0 ? "cpu" : "gpu";
    const auto known = full_ms_per_px_.find(kind);
    last_full_ms_ = double(image_.pixels()) * (known != full_ms_per_px_.end() ? known->second
                                               : kind == "cpu"                ? kGuessCpuMsPerPx
                                                                              : kGuessGpuMsPerPx);
  }
  first_view_waits_ = 0;
  s.visible = PixelRect{};  // the viewer's region of the last image: drawn again before a preview
  s.display_scale = 0;
  ++image_inputs_, ++inputs_, ++generation_;
  s.full_running = false;  // discarded above
  has_result_ = false;
  depth_normalised_ = coc_ = nullptr;
  result_ = nullptr;
  sat_view_mode_ = -1;
  edit_dirty_ = true;  // the new backend has the raw depth: an edit in force is given to it again
  s.backend_name = pipeline_->backend_name();
  s.sat_builders = pipeline_->sat_builders();
  s.reductions = pipeline_->reductions();
  s.algorithms = pipeline_->algorithms();
  s.image = &image_;
  ++s.image_generation;
  s.backend_note = note;
  s.image_width = image_.width;
  s.image_height = image_.height;
  s.params_changed = true;
  s.clear_timings();
}

void Session::set_backend(AppState& s) { load(s, image_, depth_); }  // copies: a refusal keeps them

void Session::open(AppState& s, const std::string& image_path, const std::string& depth_path) {
  const auto opened = std::chrono::steady_clock::now();
  const bool bundled = image_path.empty();
  const std::string path = bundled ? io::default_scene_image() : image_path;
  if (!bundled && open_large(s, path)) return;
  // The depth map named, else the one beside the image (NAME.depth.png, NAME_depth.png), else the one
  // embedded in the image (its depth_path is then the image's own), else synthetic.
  std::string dpath = !depth_path.empty() ? depth_path
                      : bundled           ? io::default_scene_depth()
                                          : io::depth_beside(path);
  if (dpath.empty() && io::exr_has_depth(path)) dpath = path;  // an OpenEXR with its Z pass
  io::LoadInfo info, dinfo;
  ImageRGBA8 image = io::load_image(path, &info);
  ImageF raw;  // at its own size: refined to the image's by the depth edit (apply_edit)
  io::DepthForImage embedded;
  if (dpath.empty()) embedded = io::embedded_depth_for(path, s.params);
  if (!dpath.empty()) raw = io::load_depth(dpath, info, &dinfo);
  else if (embedded.used) raw = std::move(embedded.depth);
  else raw = make_synthetic_depth(s.synthetic, image.width, image.height);  // empty for mode none
  ImageF depth = raw.empty() ? ImageF() : io::resample_depth(raw, image.width, image.height);
  load(s, std::move(image), std::move(depth));
  large_ = Large();
  s.resolution_note.clear();
  raw_ = std::move(raw);
  raw_confidence_ = ImageF();
  s.image_path = path;
  s.depth_source = embedded.summary + embedded.fitted;
  restore_range(s);
  if (embedded.used) {
    dpath = path;
    s.saved_range = {true, s.params.near_depth, s.params.far_depth, s.params.disparity};
    s.params.near_depth = embedded.params.near_depth;
    s.params.far_depth = embedded.params.far_depth;
    s.params.disparity = embedded.params.disparity;
  }
  s.depth_path = dpath;
  image_info_ = std::move(info);
  s.load_notes = image_info_.notes;
  for (const auto& n : dinfo.notes) s.load_notes.push_back(n);
  reset_edit(s, embedded.used ? DepthSource::Embedded : !dpath.empty() ? DepthSource::File : depth_.empty() ? DepthSource::None : DepthSource::Synthetic,
             dpath.empty() ? to_spec(s.synthetic) : dpath);
  truth_ = ImageRGBA8();
  s.truth.loaded.clear();
  s.truth.score.clear();
  if (!s.depth_edit.subject_changed) s.depth_edit.clicks.clear();  // a selection belongs to its image (a
  s.depth_edit.subject_note.clear();                             // preset's, pending, to the one opened)
  opened_at_ = opened, first_view_pending_ = true;
}

void Session::open_truth_case(AppState& s) {
  const std::string name = s.truth.open;
  if (!s.truth.listed) {
    s.truth.listed = true;
    s.truth.cases = io::load_truth_cases(io::default_truth_cases());
  }
  const io::TruthCase* c = nullptr;
  for (const io::TruthCase& t : s.truth.cases)
    if (t.name == name) c = &t;
  if (!c) throw Error("no ground-truth case named '" + name + "'");
  ImageRGBA8 reference = io::load_image(c->reference);
  const ImageF depth = io::load_depth(c->depth);
  if (depth.width != reference.width || depth.height != reference.height)
    throw Error(c->name + ": the depth map and the reference differ in size");
  open(s, c->image, c->depth);
  if (image_.width != reference.width || image_.height != reference.height)
    throw Error(c->name + ": the image and the reference differ in size");
  const Params& p = c->params;
  s.params.filter = FilterKind::Dof;
  s.params.focus = p.focus, s.params.aperture = p.aperture, s.params.max_radius = p.max_radius;
  s.params.near_depth = p.near_depth, s.params.far_depth = p.far_depth, s.params.disparity = false;
  s.params.response_shoulder = p.response_shoulder;  // the case's camera
  truth_ = std::move(reference);
  s.truth.loaded = c->name;
  s.params_changed = true;
}

void Session::score_against_truth(AppState& s) {
  if (truth_.empty() || !has_result_ || s.params.filter != FilterKind::Dof) {
    s.truth.score = truth_.empty() ? "" : "(scores are for the dof filter)";
    return;
  }
  const Scores q = score(truth_, result(), occlusion_band(depth_, s.params));
  char text[192];
  std::snprintf(text, sizeof(text), "This result against it: PSNR %.2f dB, SSIM %.4f; in the occlusion band (%zu px) "
                "%.2f dB, %.4f",
                q.whole.psnr, q.whole.ssim, q.band.pixels, q.band.psnr, q.band.ssim);
  s.truth.score = text;
}

void Session::open_depth(AppState& s, const std::string& depth_path) {
  if (large_.factor)
    throw Error(depth_path + ": " + large_.path + " is open as an overview, which takes synthetic depth only");
  io::LoadInfo dinfo;
  ImageF raw = io::load_depth(depth_path, image_info_, &dinfo);
  ImageF depth = io::resample_depth(raw, image_.width, image_.height);
  s.load_notes = image_info_.notes;
  for (const auto& n : dinfo.notes) s.load_notes.push_back(n);
  give_depth(s, depth);
  depth_ = std::move(depth);
  raw_ = std::move(raw);
  raw_confidence_ = ImageF();
  s.depth_path = depth_path;
  s.depth_source.clear();
  restore_range(s);
  s.params_changed = true;
  reset_edit(s, DepthSource::File, depth_path);
}

void Session::apply_synthetic_depth(AppState& s) {
  if (!s.depth_path.empty() || image_.empty()) return;  // a depth map file is open
  restore_range(s);
  ImageF depth = make_synthetic_depth(s.synthetic, image_.width, image_.height);
  if (depth.empty()) {  // mode none: a fresh backend, which has no depth map
    load(s, image_, ImageF());
    raw_ = raw_confidence_ = ImageF();
    reset_edit(s, DepthSource::None, "none");
    return;
  }
  give_depth(s, depth);
  raw_ = depth;
  raw_confidence_ = ImageF();
  depth_ = std::move(depth);
  s.params_changed = true;
  reset_edit(s, DepthSource::Synthetic, to_spec(s.synthetic));
}

void Session::handle_requests(AppState& s, const std::vector<std::string>& dropped) {
  for (const auto& f : dropped) {
    const std::string name = f.substr(f.find_last_of('/') + 1);
    (name.find("depth") != std::string::npos ? s.open_depth : s.open_image) = f;
  }
  try {
    if (!s.truth.open.empty()) open_truth_case(s);
    if (!s.open_image.empty() && !is_clip_request(s.open_image)) open(s, s.open_image, "");  // clips: Playback
    if (!s.open_depth.empty()) open_depth(s, s.open_depth);
    if (s.backend_changed) set_backend(s);
    if (s.synthetic_changed) apply_synthetic_depth(s);
    if (s.algorithms_changed) {
      full(s).set_algorithms(s.algorithms);
      s.params_changed = true;  // the next run rebuilds the SAT with it
    }
    handle_edit_requests(s);
  } catch (const Error& e) {
    s.error = e.what();
    s.backend = backend_;  // the selector shows what still runs
  }
  if (pipeline_ && !worker_.active) s.algorithms = pipeline_->algorithms();
  s.algorithms_changed = false;
  if (!is_clip_request(s.open_image)) s.open_image.clear();
  s.open_depth.clear();
  s.truth.open.clear();
  s.backend_changed = false;
  s.synthetic_changed = false;
}

bool Session::update(AppState& s) {
  s.frame_note.clear();
  if (edit_dirty_ && !image_.empty()) try {
      apply_edit(s);
    } catch (const Error& e) {
      s.error = std::string("depth edit: ") + e.what();
    }
  collect_full(s, false);
  if (image_.empty()) return std::exchange(unseen_, false);
  if (large_.factor) return update_large(s);
  const bool changed = s.params_changed || s.continuous;
  // A new image whose full frame is estimated over kFirstViewMs waits (a frame or two) for the viewer to
  // draw its area, so that the first view is a preview of what is visible, never a frozen window.
  if (changed && !s.continuous && !preview_failed_ && last_full_ms_ > kFirstViewMs && !has_result_ &&
      (s.display_scale <= 0 || s.visible.empty()) && first_view_waits_ < 3) {
    ++first_view_waits_;
    s.frame_note = "waiting for the first draw of the image area: a preview first";
    return std::exchange(unseen_, false);
  }
  if (changed) s.params_changed = false, ++generation_;
  // A preview on screen follows the view (zoom, pan, window size), as a change would.
  const bool moved =
      showing_preview_ && (s.visible != preview_visible_ || s.display_scale != preview_display_scale_);
  bool ran = false;
  if ((changed || moved) && want_preview(s)) try {
      run_preview(s);
      ran = true;
    } catch (const Error& e) {
      s.error = std::string("the preview failed (full frames only from now on): ") + e.what();
      preview_failed_ = true;
    }
  if (!ran && (changed || moved)) {
    run_full(s);
  } else if (!ran && has_result_ && !worker_.active && !showing_preview_) {
    // No run this frame: a backend that reads its timings late may have the last run's by now (recorded
    // once; a failure shows at the next run instead).
    try {
      s.record(pipeline_->timings());
      s.highlights = pipeline_->highlight_stats();
    } catch (const Error&) {
    }
  }
  if (ran || has_result_) note_first_view(s);
  // Nothing held: the full frame of what the preview shows.
  if (showing_preview_ && !s.interacting) start_full(s);
  return std::exchange(unseen_, false);
}

void Session::note_first_view(AppState& s) {
  if (!first_view_pending_) return;
  first_view_pending_ = false;
  char note[128];
  std::snprintf(note, sizeof(note), "%sfirst view (%s) %.1f ms after the open began (decoding included)",
                s.frame_note.empty() ? "" : "; ", showing_preview_ ? "a preview" : "the full frame",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - opened_at_).count());
  s.frame_note += note;
  s.first_view_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - opened_at_).count();
}

// A GPU error during a frame (out of memory, a failed launch): the same image, depth and parameters go
// on through the CPU backend; the popup and the backend panel say why.
bool Session::fall_back_to_cpu(AppState& s, const std::string& why) {
  s.backend = "cpu";
  try {
    load(s, image_, depth_);
  } catch (const Error& e) {
    s.error = "GPU error during a frame (" + why + "), and the CPU backend failed too: " + e.what();
    s.continuous = false;
    return false;
  }
  s.backend_note = "switched to the CPU backend after a GPU error: " + why;
  s.error = "GPU error during a frame (" + why + "); switched to the CPU backend";
  const bool fresh = update(s);
  unseen_ = unseen_ || fresh;  // the caller's update() reports it too
  return fresh;
}

const ImageF& Session::depth_normalised() {
  if (!has_result_ || worker_.active || showing_preview_) return kNone;
  if (!depth_normalised_) depth_normalised_ = &pipeline_->depth_normalised();
  return *depth_normalised_;
}

const ImageF& Session::coc() {
  if (!has_result_ || worker_.active || showing_preview_) return kNone;
  if (!coc_) coc_ = &pipeline_->coc();
  return *coc_;
}

const ImageRGBA8& Session::result() {
  static const ImageRGBA8 none;
  if (!has_result_ || worker_.active || showing_preview_) return none;
  if (!result_) result_ = &pipeline_->result();
  return *result_;
}

ImageF Session::difference_to_reference(AppState& s) {
  s.diff_max = 0;
  if (showing_preview_ || worker_.active) {
    s.view_note = "a preview is shown: the difference follows with the full frame";
    return ImageF(image_.width, image_.height);
  }
  if (!has_result_) return ImageF(image_.width, image_.height);
  if (pipeline_->backend_name().rfind("cpu", 0) == 0) {
    s.view_note = "the backend is the CPU reference itself: no difference by construction";
    return ImageF(image_.width, image_.height);
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto reference = make_cpu_pipeline();
  reference->set_image(image_);
  const ImageF& depth = used_.empty() ? depth_ : used_;  // what the backend was given
  if (!depth.empty()) reference->set_depth(depth);
  reference->set_params(frame_params(s));  // an overview's are scaled to it
  reference->run();
  Difference d = gui::difference(result(), reference->result());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  s.diff_max = float(d.max);
  char note[192];
  std::snprintf(note, sizeof(note),
                "vs the CPU reference: %zu of %zu pixels differ, by up to %d levels (reference run and compare: "
                "%.0f ms)",
                d.differing, image_.pixels(), d.max, ms);
  s.view_note = note;
  return std::move(d.levels);
}

void Session::show(AppState& s, Viewer& viewer, View view) try {
  viewer.set_image_size(image_.width, image_.height);
  ViewerTexture& t = viewer.texture(view);
  const bool of_pipeline = view == View::Result || view == View::Depth || view == View::Coc;
  if (showing_preview_ && of_pipeline) return upload_preview(t, view);
  if (worker_.active && of_pipeline) return;  // what it shows stays until the worker's frame is done
  t.set_coverage(0.f, 0.f, 1.f, 1.f);
  switch (view) {
    case View::Result:
      if (!has_result_) {
        t.upload(image_);
      } else {
        t.allocate(image_.width, image_.height);
        if (!viewer.external_writer || !viewer.external_writer(t)) t.upload(result());
      }
      break;
    case View::Input: t.upload(image_); break;
    case View::Depth: t.upload(depth_normalised()); break;
    case View::RawDepth:  // on the depth view's scale: the same depth, the same colour on either side
      raw_depth_view_ = depth_before_refine().empty() || edit_depth().empty()
                            ? ImageF()
                            : depth_on_scale_of(depth_before_refine(), edit_depth());
      t.upload(raw_depth_view_.empty() ? depth_normalised() : raw_depth_view_);
      break;
    case View::Coc: t.upload(coc()); break;
    case View::Sat:  // depends on the image alone: made once per image and mode
      if (sat_view_mode_ != int(s.sat_luminance)) {
        sat_view_ = log_sat_image(image_, s.sat_luminance);
        sat_view_mode_ = int(s.sat_luminance);
      }
      t.upload(sat_view_);
      break;
    case View::Diff:
      difference_ = difference_to_reference(s);
      t.upload(difference_);
      break;
    case View::Truth: t.upload(truth_.empty() ? image_ : truth_); break;
  }
} catch (const Error& e) {
  s.error = e.what();
}

}  // namespace satlab::gui
