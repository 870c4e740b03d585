// The session's preview and its full frame on a worker thread (Session::update says when each runs).
// The full pipeline keeps its state (the GPU's normalised depth and SAT) for the full frames: the
// preview has a pipeline of its own, on the same backend, fed the visible region box-filtered to the
// display's resolution (core/preview.hpp). The worker thread is the only user of the full pipeline while
// it renders; everything else that needs that pipeline waits for it first (full()).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>

#include "app/gui/session.hpp"
#include "app/ops/backend_choice.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"

namespace satlab::gui {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool any_cold(const std::vector<StageTiming>& timings) {
  return std::any_of(timings.begin(), timings.end(), [](const StageTiming& t) { return t.cold; });
}

RunInfo full_run(int width, int height, double ms, bool cold) {
  RunInfo r;
  r.width = r.image_width = width;
  r.height = r.image_height = height;
  r.source = {0, 0, width, height};
  r.ms = ms;
  r.cold = cold;
  return r;
}

// Previews at the display's resolution down to 1/8 of it.
constexpr int kMaxLevel = 3;

// The reach a preview's halo is planned for: the filter's, rounded up to a power of 2 (at least 16 px), so
// that dragging the radius slider does not make the preview's inputs again at every step.
float reach_bound(const Params& p) {
  float r = 16.f;
  while (r < filter_reach(p)) r *= 2.f;
  return r;
}

}  // namespace

Session::~Session() {
  if (worker_.thread.joinable()) worker_.thread.join();
}

bool Session::want_preview(const AppState& s) const {
  return !s.continuous && !preview_failed_ && s.display_scale > 0 && !s.visible.empty() &&
         last_full_ms_ > AppState::kFrameBudgetMs;
}

Pipeline& Session::full(AppState& s) {
  collect_full(s, true);
  return *pipeline_;
}

// The histogram the focus-range handles are drawn over (AppState::depth_histogram), of the depth
// normalised as the pipeline does it, from at most about 2^20 pixels (a brush stroke hands a depth over
// every frame); empty for no depth.
std::vector<float> strip_histogram(const ImageF& depth) {
  std::vector<float> h;
  if (depth.empty()) return h;
  const size_t step = std::max<size_t>(1, depth.data.size() >> 20);
  const MinMax range = minmax_reduce(depth.data.data(), depth.data.size());  // NaN skipped, as the pipeline's
  const float lo = range.min, hi = range.max;
  h.assign(AppState::kDepthStrip, 0.f);
  size_t counted = 0;
  for (size_t i = 0; i < depth.data.size(); i += step) {
    const float v = depth.data[i];
    if (!(v == v)) continue;
    const float d = normalised_depth(v, lo, hi - lo);
    ++h[size_t(std::clamp(int(d * AppState::kDepthStrip), 0, AppState::kDepthStrip - 1))];
    ++counted;
  }
  for (float& b : h) b = counted ? b / float(counted) : 0.f;
  return h;
}

void Session::give_depth(AppState& s, const ImageF& depth) {
  full(s).set_depth(depth);
  s.depth_histogram = strip_histogram(depth);
  ++inputs_, ++generation_;
}

void Session::show_full(AppState& s, double ms, unsigned generation) {
  const std::vector<StageTiming>& timings = pipeline_->timings();
  ++s.pipeline_runs;
  last_full_ms_ = ms;
  full_ms_per_px_[pipeline_->backend_name().rfind("cpu", 0) == 0 ? "cpu" : "gpu"] = ms / double(image_.pixels());
  s.show_timings_of(false);
  s.record(timings);
  s.highlights = pipeline_->highlight_stats();
  has_result_ = unseen_ = true;
  showing_preview_ = s.showing_preview = false;
  full_generation_ = generation;
  depth_normalised_ = coc_ = nullptr;
  result_ = nullptr;
  s.last_full = full_run(image_.width, image_.height, ms, any_cold(timings));
  s.last_run = s.last_full;
  score_against_truth(s);
}

bool Session::run_full(AppState& s) {
  Pipeline& p = full(s);
  depth_normalised_ = coc_ = nullptr;
  result_ = nullptr;
  const auto t0 = Clock::now();
  try {
    p.set_params(frame_params(s));
    p.set_every_stage(s.continuous);  // "run every frame": every row a warm time of this frame
    p.run();
  } catch (const Error& e) {
    has_result_ = false;
    if (p.backend_name().rfind("cpu", 0) != 0) return fall_back_to_cpu(s, e.what());
    s.error = std::string("the pipeline failed: ") + e.what();
    s.continuous = false;  // one popup, not one per frame
    return false;
  }
  show_full(s, ms_since(t0), generation_);
  char note[96];
  std::snprintf(note, sizeof(note), "full %dx%d, %.1f ms", image_.width, image_.height, s.last_full.ms);
  s.frame_note = note;
  return true;
}

void Session::run_preview(AppState& s) {
  const int iw = image_.width, ih = image_.height;
  if (!preview_) {
    preview_ = pipeline_->backend_name().rfind("cpu", 0) == 0 ? make_cpu_pipeline() : make_backend(backend_);
    // The SAT builder and reduction of the full pipeline, where the preview's backend has them.
    const Algorithms a = s.algorithms;
    auto offered = [](const std::vector<std::string>& names, const std::string& n) {
      return std::find(names.begin(), names.end(), n) != names.end() ? n : std::string();
    };
    preview_->set_algorithms(
        {offered(preview_->sat_builders(), a.sat_builder), offered(preview_->reductions(), a.reduction)});
    preview_image_ = preview_depth_ = preview_stats_ = ~0u;
  }
  const PixelRect visible{std::max(s.visible.x0, 0), std::max(s.visible.y0, 0), std::min(s.visible.x1, iw),
                          std::min(s.visible.y1, ih)};
  const double base = std::min(1.0, s.display_scale);
  const float reach = reach_bound(s.params);
  // The finest resolution whose estimated time fits the budget: the preview's own time per pixel once it
  // has run warm, else the full frame's. A finer one than the last needs room to spare, so that the
  // resolution does not flip between two at every frame.
  const double per_px = preview_ms_per_px_ > 0 ? preview_ms_per_px_ : last_full_ms_ / double(image_.pixels());
  int level = kMaxLevel;
  for (int l = 0; l < kMaxLevel; ++l) {
    const PreviewPlan p = plan_preview(iw, ih, visible, base / double(1 << l), reach);
    if (per_px * double(p.width) * double(p.height) <=
        (l < preview_level_ ? 0.7 : 1.0) * AppState::kFrameBudgetMs) {
      level = l;
      break;
    }
  }
  preview_level_ = level;
  const PreviewPlan plan = plan_preview(iw, ih, visible, base / double(1 << level), reach);
  s.show_timings_of(true);
  double inputs_ms = -1;  // the preview's inputs made this frame: how long that took
  const bool moved = plan.source != preview_plan_.source || plan.width != preview_plan_.width ||
                     plan.height != preview_plan_.height;
  if (moved || preview_image_ != image_inputs_ || preview_depth_ != inputs_) {
    // Made once per view, image and depth (a depth stroke: the depth alone): the region box-filtered, the
    // depth keeping the frame's range.
    const auto t0 = Clock::now();
    if (moved || preview_image_ != image_inputs_) {
      preview_image_ = preview_depth_ = ~0u;  // until given; a new size drops the preview's depth
      preview_->set_image(downscale_box(image_, plan.source, plan.width, plan.height));
      preview_image_ = image_inputs_;
    }
    const ImageF& depth = used_.empty() ? depth_ : used_;  // what the full pipeline was given
    if (preview_stats_ != inputs_) {
      preview_->set_frame_stats(whole_frame_stats(depth));  // kept across set_image and set_depth
      preview_stats_ = inputs_;
    }
    if (!depth.empty()) preview_->set_depth(downscale_box(depth, plan.source, plan.width, plan.height));
    preview_plan_ = plan;
    preview_depth_ = inputs_;
    inputs_ms = ms_since(t0);
  }
  const auto t0 = Clock::now();
  preview_->set_params(scale_params(s.params, plan.scale));
  preview_->set_every_stage(false);
  preview_->run();
  const double ms = ms_since(t0);
  const std::vector<StageTiming>& timings = preview_->timings();
  const bool cold = any_cold(timings);
  const double px = double(plan.width) * double(plan.height);
  if (!cold) preview_ms_per_px_ = preview_ms_per_px_ > 0 ? 0.5 * (preview_ms_per_px_ + ms / px) : ms / px;
  ++s.preview_runs;
  s.record(timings);
  if (inputs_ms >= 0) {  // a row of the preview's (shown "not run" by the previews that reuse them)
    s.record_stage({"preview inputs", inputs_ms, 0, ""}, "host clock",
                   "it runs when the view, the image or the depth changes, not every preview");
    s.stages["preview inputs"].of_pipeline = true;
    std::stable_partition(s.stage_order.begin(), s.stage_order.end(),
                          [&](const std::string& k) { return s.stages[k].of_pipeline; });
  }
  s.highlights = preview_->highlight_stats();
  s.last_run = RunInfo{true, plan.width, plan.height, iw, ih, plan.source, plan.scale, level, ms, cold};
  showing_preview_ = s.showing_preview = unseen_ = true;
  preview_visible_ = s.visible;
  preview_display_scale_ = s.display_scale;
  char note[160];
  std::snprintf(note, sizeof(note), "preview %dx%d of %dx%d (level %d), %.1f ms%s", plan.width, plan.height,
                iw, ih, level, ms, cold ? " cold" : "");
  s.frame_note = note;
}

void Session::start_full(AppState& s) {
  if (worker_.active) return;  // collect_full starts the next one
  try {
    pipeline_->set_params(frame_params(s));
    pipeline_->set_every_stage(false);
  } catch (const Error& e) {
    s.error = std::string("the pipeline failed: ") + e.what();
    return;
  }
  depth_normalised_ = coc_ = nullptr;
  result_ = nullptr;
  worker_.generation = generation_;
  worker_.done = false;
  worker_.error.clear();
  worker_.active = s.full_running = true;
  Pipeline* p = pipeline_.get();
  worker_.thread = std::thread([this, p] {
    const auto t0 = Clock::now();
    try {
      p->run();
    } catch (const std::exception& e) {
      worker_.error = e.what();
      if (worker_.error.empty()) worker_.error = "unknown error";
    } catch (...) {
      worker_.error = "unknown error";
    }
    worker_.ms = ms_since(t0);
    worker_.done = true;
  });
  char note[96];
  std::snprintf(note, sizeof(note), "%sfull %dx%d started on the worker thread",
                s.frame_note.empty() ? "" : "; ", image_.width, image_.height);
  s.frame_note += note;
}

bool Session::collect_full(AppState& s, bool wait) {
  if (!worker_.active || (!wait && !worker_.done)) return false;
  worker_.thread.join();
  worker_.active = s.full_running = false;
  if (!worker_.error.empty()) {
    has_result_ = false;
    const std::string why = worker_.error;
    if (pipeline_->backend_name().rfind("cpu", 0) != 0) return fall_back_to_cpu(s, why);
    s.error = "the pipeline failed: " + why;
    return false;
  }
  char note[128];
  if (worker_.generation == generation_) {
    show_full(s, worker_.ms, worker_.generation);
    std::snprintf(note, sizeof(note), "full %dx%d done, %.1f ms, shown", image_.width, image_.height,
                  worker_.ms);
  } else {  // the parameters changed while it ran: a real run, not what is asked for now
    ++s.pipeline_runs;
    last_full_ms_ = worker_.ms;
    s.record_apart(false, pipeline_->timings());
    has_result_ = true;
    full_generation_ = worker_.generation;
    s.last_full = full_run(image_.width, image_.height, worker_.ms, any_cold(pipeline_->timings()));
    std::snprintf(note, sizeof(note),
                  "full %dx%d done, %.1f ms, not shown (the parameters changed meanwhile)", image_.width,
                  image_.height, worker_.ms);
  }
  s.frame_note += (s.frame_note.empty() ? "" : "; ") + std::string(note);
  return worker_.generation == generation_;
}

void Session::discard_worker() {
  if (!worker_.active) return;
  worker_.thread.join();
  worker_.active = false;
  full_generation_ = ~0u;
}

bool Session::settle(AppState& s) {
  collect_full(s, true);
  // The one collected may have been of earlier parameters (the first view's, say): then the current one.
  if (showing_preview_ && !s.interacting && !image_.empty()) start_full(s), collect_full(s, true);
  return std::exchange(unseen_, false);
}

void Session::finish(AppState& s) {
  collect_full(s, true);
  if (!image_.empty() && (showing_preview_ || full_generation_ != generation_)) run_full(s);
}

bool Session::depth_at(int x, int y, float* d) {
  const ImageF& full_depth = depth_normalised();
  if (full_depth.width == image_.width && full_depth.height == image_.height && x >= 0 && y >= 0 &&
      x < image_.width && y < image_.height) {
    *d = full_depth.at(x, y);
    return true;
  }
  if (!showing_preview_ || !preview_) return false;
  const PreviewPlan& p = preview_plan_;
  const ImageF& pd = preview_->depth_normalised();
  if (pd.width != p.width || pd.height != p.height) return false;
  const int px = int(std::floor((x - p.source.x0 + 0.5) * p.width / p.source.width()));
  const int py = int(std::floor((y - p.source.y0 + 0.5) * p.height / p.source.height()));
  if (px < 0 || py < 0 || px >= p.width || py >= p.height) return false;
  *d = pd.at(px, py);
  return true;
}

void Session::upload_preview(ViewerTexture& t, View view) {
  const PreviewPlan& p = preview_plan_;
  const float iw = float(image_.width), ih = float(image_.height);
  if (large_.factor) {  // a detail: file pixels
    const PixelRect& r = detail_region_;
    const float fw = float(large_.width), fh = float(large_.height);
    t.set_coverage(float(r.x0) / fw, float(r.y0) / fh, float(r.x1) / fw, float(r.y1) / fh);
  } else {
    t.set_coverage(float(p.source.x0) / iw, float(p.source.y0) / ih, float(p.source.x1) / iw,
                   float(p.source.y1) / ih);
  }
  switch (view) {
    case View::Result:
      t.upload(preview_->result());
      break;
    case View::Depth:
      t.upload(preview_->depth_normalised());
      break;
    case View::Coc: {  // in image pixels, as the full frame's and the colour map's
      ImageF c = preview_->coc();
      for (float& v : c.data) v = float(v / p.scale);
      t.upload(c);
      break;
    }
    default:
      break;
  }
}

}  // namespace satlab::gui
