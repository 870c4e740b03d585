// The CPU backend of the Pipeline interface: the fallback where there is no CUDA device and the
// reference the GPU backend is compared with. Stages are timed with a steady clock.
// Without a depth map the dof filter treats every pixel as lying on the focus plane (the image stays
// sharp): the GUI can show any image before a depth map is chosen.
#include <algorithm>
#include <chrono>
#include <new>
#include <set>
#include <string>

#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/chromatic.hpp"
#include "core/grain.hpp"
#include "core/highlights.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

constexpr size_t kMaxPixels = size_t(1) << 28;

class CpuPipeline final : public Pipeline {
 public:
  explicit CpuPipeline(int threads) : threads_(threads <= 0 ? default_threads() : threads) {}

  std::string backend_name() const override { return "cpu (" + std::to_string(threads_) + " threads)"; }

  void set_image(const ImageRGBA8& image) override {
    if (image.empty())
      throw Error("empty image (" + std::to_string(image.width) + "x" + std::to_string(image.height) + ")");
    // Checked before anything is allocated: the SAT alone takes 16 bytes per pixel.
    if (image.pixels() > kMaxPixels)
      throw Error("image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                  " pixels is larger than the CPU backend's limit of 2^28 pixels");
    if (image.data.size() != image.pixels() * 4)
      throw Error("image buffer holds " + std::to_string(image.data.size()) + " bytes, not " +
                  std::to_string(image.pixels() * 4) + " for " + std::to_string(image.width) + "x" +
                  std::to_string(image.height) + " RGBA8");
    if (image.width != image_.width || image.height != image_.height) warm_.clear();  // new buffers: cold
    guard_memory("the image", [&] { image_ = image; });
    grain_known_ = false;
    if (!depth_raw_.empty() && (depth_raw_.width != image.width || depth_raw_.height != image.height))
      depth_raw_ = ImageF();  // a depth map of the old size no longer applies
  }

  void set_depth(const ImageF& depth) override {
    if (depth.channels != 1) throw Error("depth map must have one channel");
    if (depth.width != image_.width || depth.height != image_.height)
      throw Error("depth map is " + std::to_string(depth.width) + "x" + std::to_string(depth.height) +
                  " but the image is " + std::to_string(image_.width) + "x" + std::to_string(image_.height));
    if (depth.data.size() != depth.pixels()) throw Error("depth map buffer does not match its size");
    guard_memory("the depth map", [&] { depth_raw_ = depth; });
  }

  void set_params(const Params& params) override {
    validate(params);
    mode_ = &dof_mode_of(params);
    params_ = params;
  }

  void set_frame_stats(const FrameStats& stats) override {
    if (stats.valid && stats.has_depth && stats.histogram.count.size() != size_t(kDepthBins + 1))
      throw Error("frame statistics: the depth histogram has " +
                  std::to_string(stats.histogram.count.size()) + " bins, not " +
                  std::to_string(kDepthBins + 1));
    guard_memory("the frame statistics", [&] { frame_ = stats; });
  }

  // Every stage of the chosen filter runs (and is timed) on every call, so the timings list depends
  // only on the filter: dof = reduce (normalise where whole-frame statistics are given), coc, dof (with its
  // mode's phases); box = sat, blur.
  void run() override {
    if (image_.empty()) throw Error("no image set");
    ++runs_;
    guard_memory("one frame", [&] { run_stages(); });
  }

  const ImageRGBA8& result() override { return result_; }
  const ImageF& depth_normalised() override { return depth_norm_; }
  const ImageF& coc() override { return coc_; }
  const std::vector<StageTiming>& timings() const override { return timings_; }
  HighlightStats highlight_stats() const override { return stats_; }

  // One fixed implementation of each: core/reference's multi-threaded SAT and min/max.
  std::vector<std::string> sat_builders() const override { return {"cpu"}; }
  std::vector<std::string> reductions() const override { return {"cpu"}; }
  Algorithms algorithms() const override { return {"cpu", "cpu"}; }
  void set_algorithms(const Algorithms& a) override {
    if (!a.sat_builder.empty()) check_choice("SAT builder of the CPU backend", a.sat_builder, sat_builders());
    if (!a.reduction.empty()) check_choice("reduction of the CPU backend", a.reduction, reductions());
  }

 private:
  void run_stages() {
    timings_.clear();
    const double n = double(image_.pixels());
    const bool dof = params_.filter == FilterKind::Dof;
    if (dof) {
      if (depth_raw_.empty()) {
        // No depth map: every pixel lies on the focus plane, so the frame stays sharp. The stage still
        // runs so that the stage list does not change with the inputs.
        time("reduce", 0, [&] {
          if (depth_norm_.pixels() != image_.pixels()) depth_norm_ = ImageF(image_.width, image_.height, 1);
          depth_norm_.width = image_.width;
          depth_norm_.height = image_.height;
          std::fill(depth_norm_.data.begin(), depth_norm_.data.end(), params_.focus);
          hist_.count.clear();  // one depth everywhere: the layers' edges do not matter
        });
      } else if (given()) {
        // A tile of a larger image (set_frame_stats): the whole image's range and histogram; normalise
        // reads 4 B and writes 4 B.
        time("normalise", 8 * n, [&] {
          normalise_depth(depth_raw_, MinMax{frame_.depth_min, frame_.depth_max}, depth_norm_, threads_);
          hist_ = frame_.histogram;
        });
      } else {
        // min/max: read 4 B; normalise: read 4 B, write 4 B.
        // The depth histogram (read 4 B) gives the occlusion-aware modes their layer edges (frame_layers).
        time("reduce", 16 * n, [&] {
          normalise_depth(depth_raw_, depth_norm_, threads_);
          depth_histogram(depth_norm_, hist_, threads_);
        });
      }
      time("coc", 8 * n, [&] { coc_map(depth_norm_, params_, coc_, threads_); });
    }
    // Bokeh highlights (core/highlights.hpp): sprites out of the gather's input, splatted after it.
    const bool highlights = dof && params_.highlights;
    if (highlights) {
      // One stage with its phases listed after it (a phase's time is part of its stage's).
      const size_t stage = timings_.size();
      time("highlights", 0, [] {});
      HighlightSprites s;
      time("compact", 0, [&] {
        s = highlight_compact(image_, coc_, params_);
        highlight_mask(image_, s, masked_);
      });
      time("sort", 0, [&] { highlight_sort(coc_, s); });
      time("splat", 0, [&] { highlight_splat(image_, coc_, s, params_, planes_, mode_); });
      for (size_t i = stage + 1; i < timings_.size(); ++i) {
        timings_[i].parent = "highlights";
        timings_[stage].ms += timings_[i].ms;
        timings_[i].cold = timings_[stage].cold;
      }
      stats_ = s.stats;
    }
    const ImageRGBA8& gather_in = highlights ? masked_ : image_;
    if (dof) {
      // The mode's one stage, whose phases (the GPU's names) are timed by the host clock as the work moves
      // from one to the next; a phase met twice (slice and sat alternate layer by layer) adds up.
      std::vector<StageTiming> phases;  // in the order first met
      size_t open = 0;                  // the phase the time since `at` goes to (phases.size(): none)
      auto at = std::chrono::steady_clock::now();
      const auto phase = [&](const char* name) {  // nullptr: the last phase ends
        const auto now = std::chrono::steady_clock::now();
        if (open < phases.size())
          phases[open].ms += std::chrono::duration<double, std::milli>(now - at).count();
        at = now;
        if (!name) {
          open = phases.size();
          return;
        }
        open = size_t(
            std::find_if(phases.begin(), phases.end(), [&](const StageTiming& t) { return t.name == name; }) -
            phases.begin());
        if (open == phases.size()) phases.push_back({name, 0.0, 0.0, "dof", false, runs_});
      };
      DofCpuArgs a;
      a.image = &gather_in, a.coc = &coc_, a.params = &params_, a.out = &result_, a.threads = threads_;
      a.depth = hist(), a.phase = phase, a.workspace = &dof_ws_;
      a.layer_sums = given() && frame_.layers.count > 0 ? &frame_.layers : nullptr;
      // No cache size known here: every table counts.
      time("dof", mode_->dram_bytes(image_.width, image_.height, params_, 0), [&] {
        mode_->run_cpu(a);
        phase(nullptr);
      });
      for (StageTiming& t : phases) t.cold = timings_.back().cold;
      timings_.insert(timings_.end(), phases.begin(), phases.end());
    } else {
      time("sat", 20 * n, [&] { sat_rgba8(image_, sat_, threads_); });  // read 4 B, write 16 B
      // Minimum traffic: the SAT read once (16 B), the result written (4 B).
      time("blur", 20 * n, [&] { box_blur(image_, sat_, params_.box_radius, result_, threads_); });
    }
    if (highlights) time("highlights_add", 0,
                       [&] { highlight_add(planes_, coc_, params_.response_shoulder, result_, threads_); });
    // Chromatic aberration (core/chromatic.hpp): red and blue from a second pass of the same mode, its CoC
    // green's plus the offset; one stage (its CoC, highlights, filter and the merge).
    if (dof && uses_chromatic(params_)) time("chromatic", 0, [&] { red_blue_pass(); });
    // Grain (core/grain.hpp): the frame's noise, estimated once per image, re-added where the blur took it
    // (tiled runs refuse grain: core/tiled.cpp).
    if (dof && params_.grain > 0.f) {
      time("grain", 9 * n, [&] {
        if (!grain_known_) grain_ = grain_noise(grain_sums(image_, threads_)), grain_known_ = true;
        apply_grain(result_, coc_, params_.grain, grain_, threads_);
      });
    }
  }

  // Red and blue's pass (core/chromatic.hpp) into result_rb_, merged into result_. The highlights' buffers
  // are reused: the first pass has added its own.
  void red_blue_pass() {
    const Params q = chromatic_pass(params_);
    coc_map(depth_norm_, q, coc_rb_, threads_);
    const bool highlights = q.highlights;
    if (highlights) {
      HighlightSprites s = highlight_compact(image_, coc_rb_, q);
      highlight_mask(image_, s, masked_);
      highlight_sort(coc_rb_, s);
      highlight_splat(image_, coc_rb_, s, q, planes_, mode_);
    }
    if (result_rb_.width != image_.width || result_rb_.height != image_.height)
      result_rb_ = ImageRGBA8(image_.width, image_.height);
    DofCpuArgs a;
    a.image = highlights ? &masked_ : &image_, a.coc = &coc_rb_, a.params = &q, a.out = &result_rb_;
    a.threads = threads_, a.depth = hist(), a.workspace = &dof_ws_;
    mode_->run_cpu(a);
    if (highlights) highlight_add(planes_, coc_rb_, q.response_shoulder, result_rb_, threads_);
    merge_red_blue(result_, result_rb_, threads_);
  }

  // Allocation failures become satlab::Error naming what did not fit (the state stays usable).
  template <typename F>
  void guard_memory(const char* what, F&& f) {
    try {
      f();
    } catch (const std::bad_alloc&) {
      throw Error("out of memory for " + std::string(what) + " (" + std::to_string(image_.width) + "x" +
                  std::to_string(image_.height) + " pixels)");
    }
  }

  template <typename F>
  void time(const char* name, double bytes, F&& f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    auto t1 = std::chrono::steady_clock::now();
    const bool cold = warm_.insert(name).second;  // its first run at this size: allocates, faults pages in
    timings_.push_back({name, std::chrono::duration<double, std::milli>(t1 - t0).count(), bytes, "", cold, runs_});
  }

  int threads_;
  ImageRGBA8 image_, result_, result_rb_;  // result_rb_: the red and blue pass's frame (chromatic aberration)
  GrainNoise grain_;
  bool grain_known_ = false;
  const DepthHistogram* hist() const { return hist_.count.empty() ? nullptr : &hist_; }
  // Whole-frame statistics apply (set_frame_stats) where the frame has a depth map.
  bool given() const { return frame_.valid && frame_.has_depth && !depth_raw_.empty(); }
  FrameStats frame_;
  ImageF depth_raw_, depth_norm_, coc_, coc_rb_;  // coc_rb_: red and blue's (chromatic aberration)
  DepthHistogram hist_;
  std::vector<uint32_t> sat_;     // the box filter's SAT
  DofCpuWorkspace dof_ws_;        // the DoF mode's buffers
  ImageRGBA8 masked_;             // the gather's input with the highlight sprites taken out
  std::vector<uint32_t> planes_;  // the sprites' row-delta planes
  HighlightStats stats_;
  Params params_;
  const DofMode* mode_ = &dof_mode_of(Params{});  // params_'s, resolved in set_params
  std::vector<StageTiming> timings_;
  std::set<std::string> warm_;  // stages run since the image size last changed
  unsigned long runs_ = 0;
};

}  // namespace

std::unique_ptr<Pipeline> make_cpu_pipeline(int threads) {
  return std::make_unique<CpuPipeline>(threads);
}

}  // namespace satlab
