// satlab quality: every DoF mode (core/dof_modes.hpp) on every thin-lens ground-truth case
// (assets/ground_truth/cases.json, or --cases), scored against the lens reference: PSNR and SSIM over
// the whole image and over the occlusion band (core/quality.hpp), and the mode's frame time on the
// backend that ran it. Prints a table; --json writes the rows, --crops DIR writes reference | mode crops,
// --images DIR the whole results. --highlights on,off scores each mode with and without bokeh highlights
// (core/highlights.hpp): one row each. Each case runs under its camera response (the manifest's
// response_shoulder, 0 where absent) unless --response-shoulder names one for all.
//
// --depth SOURCE[,...] runs each case with depth as users have it (core/depth_sources.hpp: exact, phone,
// phone_noisy, stereo, brush), made from the case's exact depth (and, for stereo, its right view), and
// --refine LIST (none, auto or refiner names, core/refine.hpp) turns each into full-resolution depth: a
// row per case, source, refine choice, mode and highlights setting. The occlusion band stays the exact
// depth's. The pipeline normalises depth by its min/max; so that a source's depth keeps the case's units
// (a source whose range is [lo, hi] would otherwise be stretched onto [0, 1]), each row runs under the
// case's Params mapped onto that range: near' = z(lo), far' = z(hi), focus' = (focus - lo) / (hi - lo),
// which gives every pixel the CoC its depth has under the case's Params. Where focus' falls outside
// [0, 1] (the focus plane beyond every depth of the source) it is clamped there and the row says so
// ("units": "case_focus_clamped"); where the depth is flat the case's Params run unchanged on the
// renormalised depth ("renormalised"). Pixels a refiner leaves without depth (NaN) are filled as the
// app fills a depth map's holes (io::fill_depth_holes).
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/io/aperture_files.hpp"
#include "app/io/ground_truth.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/param_overlay.hpp"
#include "core/depth_sources.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/quality.hpp"
#include "core/refine.hpp"
#include "core/temporal.hpp"

namespace satlab::cli {
namespace {

struct QualityOptions {
  std::string cases, json, backend = "auto", modes, crops, images, highlights = "off";
  std::string depth = "exact", refine = "auto";
  std::string select_params;  // --select-params: the selection source's selector (depth select --params)
  bool save_depth = false;  // each source's depth, raw and refined, into --images
  float highlight_threshold = Params{}.highlight_threshold, highlight_gain = Params{}.highlight_gain;
  int runs = 5;
  int layers = Params{}.dof_layers;  // of the occlusion-aware modes
  float response_shoulder = -1.f;    // < 0: each case's camera response, from the manifest
  float focus_range = 0.f;           // in the case's normalised depth units, mapped like the focus
  bool video = false;                // --video: the manifest's sequences, frame by frame (run_quality_video)
  std::string temporal = "off;gated";  // --video: the temporal depth filters, a row each (';' between)
  // The lens flags given (--lens, --anamorphic, ..., --cat-eye), laid over every case's own lens: a lens
  // scored against a truth traced with another (spread without cat-eye against the cat-eye truth).
  ParamOverlay lens;
};

// The lens flags of `render`, with the same names and ranges, each overriding the case's value where given.
struct LensFlags {
  Params p;
  std::string lens, aperture_image, cat_eye = "0";
};

struct LoadedCase {
  io::TruthCase c;
  ImageRGBA8 image, reference, right;  // right: the stereo right view, when a source needs it
  ImageF depth;
  Mask band;
  std::vector<uint8_t> objects;  // a sequence's frame: each pixel's object (the manifest's "objects"); empty: none
};

// The warping error of frame k's output against frame k-1's (core/quality.hpp), through the frames' object
// maps and the motion frame k lists; NaN where the frames have no object maps.
double clip_warping_error(const LoadedCase& cur, const LoadedCase& prev, const ImageRGBA8& out, const ImageRGBA8& out_prev) {
  if (cur.objects.empty() || prev.objects.empty()) return std::nan("");
  std::vector<std::pair<double, double>> motion(256, {0.0, 0.0});
  for (const io::TruthCase::Motion& m : cur.c.motion) motion[size_t(m.object)] = {m.dx, m.dy};
  return warping_error(out, out_prev, cur.objects, prev.objects, motion);
}

// One source's depth refined for one scene: full resolution, finite, with its range.
struct SourceDepth {
  ImageF depth;
  float lo = 0.f, hi = 0.f;
  int source_width = 0, source_height = 0;
  double refine_ms = 0;
  size_t filled = 0;  // pixels left without depth, filled by io::fill_depth_holes
};

// The frame time of the mode just set: `runs` frames after two warm-up frames, each a full frame of a
// new image and depth (upload excluded), timed by the backend's own stage timings (CUDA events on the
// GPU, wall clock on the CPU). Returns the median of the frames' sums of top-level stages.
double frame_ms(Pipeline& pipe, const ImageRGBA8& image, const ImageF& depth, int runs,
                std::vector<StageTiming>* stages) {
  std::vector<double> totals;
  for (int i = 0; i < runs + 2; ++i) {
    pipe.set_image(image);
    pipe.set_depth(depth);
    pipe.run();
    pipe.result();  // waits for the frame, so timings() are this frame's
    double t = 0;
    for (const StageTiming& s : pipe.timings())
      if (s.parent.empty() && s.name != "upload") t += s.ms;
    if (i >= 2) totals.push_back(t);
    if (i == runs + 1 && stages) *stages = pipe.timings();
  }
  std::sort(totals.begin(), totals.end());
  return totals[totals.size() / 2];
}

nlohmann::json score_json(const Score& s) {
  nlohmann::json psnr;
  if (std::isinf(s.psnr))
    psnr = "inf";  // equal images
  else if (!std::isnan(s.psnr))
    psnr = s.psnr;  // NaN (no pixels): null
  nlohmann::json ssim;
  if (!std::isnan(s.ssim)) ssim = s.ssim;
  return {{"psnr", psnr}, {"ssim", ssim}, {"pixels", s.pixels}};
}

std::string fmt(double v, const char* f) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return "inf";
  char b[32];
  std::snprintf(b, sizeof(b), f, v);
  return b;
}

// reference | mode, side by side, each the case's crop rectangle scaled 3x (nearest), 2 px apart.
ImageRGBA8 crop_pair(const ImageRGBA8& ref, const ImageRGBA8& out, const io::TruthCase::Crop& c) {
  const int s = 3, gap = 2;
  ImageRGBA8 img(2 * c.w * s + gap, c.h * s);
  for (size_t i = 0; i < img.pixels(); ++i) img.data[i * 4 + 3] = 255;
  for (int side = 0; side < 2; ++side)
    for (int y = 0; y < c.h * s; ++y)
      for (int x = 0; x < c.w * s; ++x) {
        const uint8_t* p = (side ? out : ref).px(c.x + x / s, c.y + y / s);
        uint8_t* q = img.px(side * (c.w * s + gap) + x, y);
        std::copy(p, p + 4, q);
      }
  return img;
}

std::vector<const DofMode*> chosen_modes(const std::string& list) {
  std::vector<const DofMode*> modes;
  if (list.empty()) {
    for (const DofMode& m : dof_modes()) modes.push_back(&m);
    return modes;
  }
  std::stringstream ss(list);
  std::string name;
  while (std::getline(ss, name, ',')) {
    const DofMode* m = find_dof_mode(name);
    if (!m) throw Error("--modes: unknown DoF mode '" + name + "' (valid: " + dof_mode_list() + ")");
    modes.push_back(m);
  }
  if (modes.empty()) throw Error("--modes: no mode named");
  return modes;
}

std::vector<bool> chosen_highlights(const std::string& list) {
  std::vector<bool> r;
  std::stringstream ss(list);
  std::string v;
  while (std::getline(ss, v, ',')) {
    if (v != "on" && v != "off") throw Error("--highlights: '" + v + "' is not on or off (give on, off or on,off)");
    r.push_back(v == "on");
  }
  if (r.empty()) throw Error("--highlights: give on, off or on,off");
  return r;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> r;
  std::stringstream ss(list);
  std::string v;
  while (std::getline(ss, v, ',')) r.push_back(v);
  return r;
}

std::vector<std::string> chosen_sources(const std::string& list) {
  std::vector<std::string> r = split_list(list);
  for (const std::string& s : r) {
    if (std::find(depth_source_names().begin(), depth_source_names().end(), s) == depth_source_names().end())
      throw Error("--depth: unknown depth source '" + s + "' (valid: " + depth_source_list() + ")");
    if (std::count(r.begin(), r.end(), s) > 1) throw Error("--depth: '" + s + "' named twice");
  }
  if (r.empty()) throw Error("--depth: no source named (valid: " + depth_source_list() + ")");
  return r;
}

std::vector<std::string> chosen_refiners(const std::string& list) {
  std::vector<std::string> r = split_list(list);
  for (const std::string& s : r) {
    if (s != "auto" && !find_refiner(s))
      throw Error("--refine: unknown refiner '" + s + "' (valid: auto, " + refiner_list() + ")");
    if (std::count(r.begin(), r.end(), s) > 1) throw Error("--refine: '" + s + "' named twice");
  }
  if (r.empty()) throw Error("--refine: no refiner named (valid: auto, " + refiner_list() + ")");
  return r;
}

// What a depth source needs of a case: its exact depth, depths, views and clicks (the default seed).
DepthSourceInput source_input(const LoadedCase& lc, const SelectParams& select) {
  DepthSourceInput in;
  in.select = select;
  in.exact = &lc.depth;
  in.near_depth = lc.c.params.near_depth, in.far_depth = lc.c.params.far_depth;
  in.left = &lc.image;
  in.right = &lc.right;
  in.disparity_scale = lc.c.disparity_scale;
  in.clicks = lc.c.clicks;
  return in;
}

// The depth of `source` for the case's scene, refined by `refiner` to the image's size, holes filled.
SourceDepth make_source_depth(const LoadedCase& lc, const DepthSource& src, const std::string& refiner) {
  SourceDepth r;
  r.source_width = src.depth.width, r.source_height = src.depth.height;
  RefineInput in;
  in.image = &lc.image;
  in.depth = &src.depth;
  in.confidence = src.confidence.empty() ? nullptr : &src.confidence;
  const auto t0 = std::chrono::steady_clock::now();
  r.depth = refine_cpu(refiner, in);
  r.refine_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (r.depth.width != lc.image.width || r.depth.height != lc.image.height || r.depth.channels != 1)
    throw Error("refiner " + refiner + " returned " + std::to_string(r.depth.width) + "x" +
                std::to_string(r.depth.height) + " depth for a " + std::to_string(lc.image.width) + "x" +
                std::to_string(lc.image.height) + " image");
  r.filled = size_t(io::fill_depth_holes(r.depth, nullptr));
  r.lo = std::numeric_limits<float>::infinity(), r.hi = -r.lo;
  for (float v : r.depth.data) r.lo = std::min(r.lo, v), r.hi = std::max(r.hi, v);
  return r;
}

// The case's Params mapped onto the depth's range [lo, hi] (see the header): "case", "case_focus_clamped",
// or "renormalised" where that cannot be (p unchanged then).
const char* keep_units(Params& p, float lo, float hi) {
  const double range = double(p.far_depth) - p.near_depth;
  const double focus = (double(p.focus) - lo) / (double(hi) - lo);
  Params q = p;
  q.near_depth = float(p.near_depth + lo * range);
  q.far_depth = float(p.near_depth + hi * range);
  q.focus = float(std::clamp(focus, 0.0, 1.0));
  const auto width = [&](float t) { return float(std::min(double(t) / (double(hi) - lo), 1.0)); };
  q.focus_range = width(p.focus_range), q.focus_range_far = width(p.focus_range_far);
  q.focus_ramp_near = width(p.focus_ramp_near), q.focus_ramp_far = width(p.focus_ramp_far);
  if (!(hi - lo > 1e-6f) || !(q.far_depth > q.near_depth)) return "renormalised";
  p = q;
  return focus >= 0 && focus <= 1 ? "case" : "case_focus_clamped";
}

// A depth map with NaN as 0, for a 16-bit PNG.
ImageF viewable(ImageF d) {
  for (float& v : d.data)
    if (!std::isfinite(v)) v = 0.f;
  return d;
}

// The error's change from frame to frame where the truth did not change (every channel equal): the mean over
// those pixels and channels of |(out_t - ref_t) - (out_t-1 - ref_t-1)|, 8-bit units; NaN where none.
double error_flicker(const ImageRGBA8& out, const ImageRGBA8& ref, const ImageRGBA8& out_prev,
                     const ImageRGBA8& ref_prev, size_t* pixels) {
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < ref.pixels(); ++i) {
    const uint8_t* r = ref.data.data() + i * 4;
    const uint8_t* q = ref_prev.data.data() + i * 4;
    if (r[0] != q[0] || r[1] != q[1] || r[2] != q[2]) continue;
    for (int c = 0; c < 3; ++c)
      sum += std::fabs(double(int(out.data[i * 4 + c]) - r[c]) - double(int(out_prev.data[i * 4 + c]) - q[c]));
    ++n;
  }
  *pixels = n;
  return n ? sum / double(3 * n) : std::nan("");
}

// satlab quality --video: each sequence of the manifest (cases with "sequence", tools/gen_cutouts
// --sequence) frame by frame, for every depth source, refiner and temporal filter: the source made with a
// seed of its own per frame (noise independent from frame to frame), refined, filtered over time (or
// not), rendered by the first mode of --modes (spread by default) and scored per frame, whole and band,
// with the error's flicker in the regions the truth holds still.
int run_quality_video(const QualityOptions& o) {
  const SelectParams select = parse_select_params(o.select_params);
  const std::string manifest = o.cases.empty() ? io::default_truth_cases() : o.cases;
  const DofMode* mode = o.modes.empty() ? find_dof_mode("spread") : chosen_modes(o.modes).front();
  const std::vector<std::string> sources = chosen_sources(o.depth), refines = chosen_refiners(o.refine);
  std::vector<std::string> filters;
  {
    std::stringstream ss(o.temporal);
    std::string v;
    while (std::getline(ss, v, ';')) filters.push_back(v);
  }
  for (const std::string& f : filters) {
    TemporalParams tp;
    parse_temporal(f, &tp);  // checks it
  }
  const bool stereo = std::find(sources.begin(), sources.end(), "stereo") != sources.end();
  if (!o.images.empty() && !io::is_dir(o.images)) throw Error(o.images + ": --images is not an existing folder");
  std::map<std::string, std::vector<LoadedCase>> seqs;
  for (io::TruthCase& c : io::load_truth_cases(manifest)) {
    if (c.sequence.empty()) continue;
    LoadedCase lc;
    lc.image = io::load_image(c.image);
    lc.reference = io::load_image(c.reference);
    lc.depth = io::load_depth(c.depth);
    if (lc.reference.width != lc.image.width || lc.depth.width != lc.image.width ||
        lc.reference.height != lc.image.height || lc.depth.height != lc.image.height)
      throw Error(manifest + ": case " + c.name + ": image, depth and reference differ in size");
    lc.band = occlusion_band(lc.depth, c.params);
    if (!c.objects.empty()) {
      const ImageF ids = io::load_depth(c.objects);  // 16-bit labels k / 255
      if (ids.width != lc.image.width || ids.height != lc.image.height)
        throw Error(manifest + ": case " + c.name + ": its object map differs in size from the image");
      lc.objects.resize(ids.data.size());
      for (size_t i = 0; i < ids.data.size(); ++i) lc.objects[i] = uint8_t(std::clamp(std::lround(ids.data[i] * 255.f), 0L, 255L));
    }
    if (stereo) {
      if (c.right.empty()) throw Error(manifest + ": case " + c.name + ": no right view for --depth stereo");
      lc.right = io::load_image(c.right);
    }
    const std::string name = c.sequence;
    lc.c = std::move(c);
    if (!o.lens.empty()) {  // the lens flags, as for stills
      lc.c.params = o.lens.over(lc.c.params);
      validate(lc.c.params);
    }
    seqs[name].push_back(std::move(lc));
  }
  if (seqs.empty()) throw Error(manifest + ": no sequences (cases with \"sequence\": tools/gen_cutouts --sequence)");
  std::string note;
  std::unique_ptr<Pipeline> pipe = make_backend(o.backend, &note);
  if (!note.empty()) std::fprintf(stderr, "satlab: note: %s\n", note.c_str());
  std::printf("backend %s, mode %s; per-frame PSNR means, flicker: mean |change of the error| where the truth is still;\n"
              "warp: the warping error x 1000 (the truth's own in brackets)\n",
              pipe->backend_name().c_str(), mode->name);
  std::printf("%-16s %6s %-11s %-14s %-8s %9s %9s %9s %9s %16s\n", "sequence", "frames", "depth", "refine", "temporal",
              "PSNR dB", "band dB", "flicker", "still px", "warp (truth)");
  nlohmann::json rows = nlohmann::json::array();
  for (auto& [name, frames] : seqs) {
    std::sort(frames.begin(), frames.end(), [](const LoadedCase& a, const LoadedCase& b) { return a.c.frame < b.c.frame; });
    for (const std::string& source : sources)
      for (const std::string& choice : refines)
        for (const std::string& filter : filters) {
          const DepthSourceOrigin origin = depth_source_origin(source);
          const std::string refiner = resolve_refiner(choice, origin.origin, origin.lower_resolution);
          TemporalParams tp;
          const bool filtering = parse_temporal(filter, &tp);
          TemporalFilter temporal(tp);
          ImageRGBA8 prev_out;
          nlohmann::json whole = nlohmann::json::array(), band = nlohmann::json::array(), flick = nlohmann::json::array();
          double sw = 0, sb = 0, sf = 0, swarp = 0, struth = 0;
          size_t nf = 0, still = 0, nwarp = 0;
          nlohmann::json warps = nlohmann::json::array();
          for (size_t k = 0; k < frames.size(); ++k) {
            const LoadedCase& lc = frames[k];
            DepthSourceInput in = source_input(lc, select);
            in.seed = kDepthSourceSeed + uint64_t(lc.c.frame) * 0x9e3779b97f4a7c15ull;  // its own noise
            SourceDepth sd = make_source_depth(lc, make_depth_source(source, in), refiner);
            if (filtering) {
              temporal.apply(sd.depth, lc.image);
              sd.lo = std::numeric_limits<float>::infinity(), sd.hi = -sd.lo;
              for (float v : sd.depth.data) sd.lo = std::min(sd.lo, v), sd.hi = std::max(sd.hi, v);
            }
            Params p = lc.c.params;
            if (source != "exact") keep_units(p, sd.lo, sd.hi);
            p.dof_mode = mode->name;
            if (o.response_shoulder >= 0.f) p.response_shoulder = o.response_shoulder;
            validate(p);
            pipe->set_image(lc.image);
            pipe->set_depth(sd.depth);
            pipe->set_params(p);
            pipe->run();
            const ImageRGBA8 out = pipe->result();
            if (!o.images.empty())
              io::save_png(o.images + "/" + lc.c.name + "_" + source + "_" + (filtering ? "gated" : "off") + ".png", out);
            const Scores sc = score(lc.reference, out, lc.band);
            whole.push_back(sc.whole.psnr), band.push_back(sc.band.psnr);
            sw += sc.whole.psnr, sb += sc.band.psnr;
            if (k > 0) {
              size_t px = 0;
              const double f = error_flicker(out, lc.reference, prev_out, frames[k - 1].reference, &px);
              flick.push_back(f);
              if (px) sf += f, ++nf, still += px;
              const double we = clip_warping_error(lc, frames[k - 1], out, prev_out);
              const double wt = clip_warping_error(lc, frames[k - 1], lc.reference, frames[k - 1].reference);
              warps.push_back(we);
              if (std::isfinite(we) && std::isfinite(wt)) swarp += we, struth += wt, ++nwarp;
            }
            prev_out = out;
          }
          const double n = double(frames.size());
          const double fl = nf ? sf / double(nf) : std::nan("");
          const double warp = nwarp ? swarp / double(nwarp) : std::nan(""), warp_truth = nwarp ? struth / double(nwarp) : std::nan("");
          char warp_text[48];
          std::snprintf(warp_text, sizeof(warp_text), "%.3f (%.3f)", 1000 * warp, 1000 * warp_truth);
          std::printf("%-16s %6zu %-11s %-14s %-8s %9.2f %9.2f %9.4f %9zu %16s\n", name.c_str(), frames.size(), source.c_str(),
                      (choice == refiner ? refiner : choice + ":" + refiner).c_str(), filter.c_str(), sw / n, sb / n, fl,
                      nf ? still / nf : 0, warp_text);
          rows.push_back({{"sequence", name}, {"frames", frames.size()}, {"depth", source}, {"refine", refiner},
                          {"refine_choice", choice}, {"temporal", filter}, {"mode", mode->name},
                          {"psnr_mean", sw / n}, {"band_psnr_mean", sb / n}, {"flicker", fl},
                          {"still_pixels_mean", nf ? still / nf : 0}, {"psnr", whole}, {"band_psnr", band},
                          {"flicker_per_frame", flick}, {"warping_error", warp}, {"warping_error_truth", warp_truth},
                          {"warping_error_per_frame", warps}});
        }
  }
  if (!o.json.empty()) {
    nlohmann::json j = {{"command", "satlab quality --video"}, {"rev", git_rev()}, {"cases_file", manifest},
                        {"backend", pipe->backend_name()},
                        {"about", "per sequence, depth source, refiner and temporal filter: per-frame PSNR over R,G,B "
                                  "(whole and occlusion band) and their means; flicker: the mean over frames and "
                                  "pixels where the truth is unchanged from the frame before (every channel equal) "
                                  "of |(out_t - truth_t) - (out_t-1 - truth_t-1)| per channel, 8-bit units; the "
                                  "depth sources' noise is drawn with a seed per frame; warping_error: Lai et al. 2018 "
                                  "with the generator's motion (core/quality.hpp warping_error), the mean over frames "
                                  "after the first, RGB in [0,1]; warping_error_truth: the same of the thin-lens truth"},
                        {"rows", rows}};
    io::save_text(o.json, j.dump(1) + "\n");
  }
  return 0;
}

// The bokeh of each point light of a case with dots (the points scene) against the truth's: dot_shape in
// a window reaching the case's largest CoC and 3 px more. The target: IoU >= 0.9, shift <= 1 px.
constexpr double kShapeIou = 0.9, kShapeShift = 1.0;
nlohmann::json dot_shapes(const LoadedCase& lc, const ImageRGBA8& out) {
  if (lc.c.dots.empty()) return nullptr;
  const int reach = int(std::ceil(lc.c.params.max_radius)) + 3;
  int met = 0;
  double worst_iou = 1, worst_shift = 0, sum_iou = 0;
  nlohmann::json each = nlohmann::json::array();
  for (const io::TruthCase::Dot& d : lc.c.dots) {
    const DotShape sh = dot_shape(lc.reference, out, d.x, d.y, reach);
    const double shift = std::isnan(sh.shift) ? 1e9 : sh.shift;
    met += sh.iou >= kShapeIou && shift <= kShapeShift;
    worst_iou = std::min(worst_iou, sh.iou), worst_shift = std::max(worst_shift, shift), sum_iou += sh.iou;
    each.push_back({{"x", d.x}, {"y", d.y}, {"z", d.z}, {"iou", sh.iou}, {"shift", shift}});
  }
  return {{"dots", int(lc.c.dots.size())}, {"met", met},          {"worst_iou", worst_iou},
          {"worst_shift", worst_shift},   {"mean_iou", sum_iou / double(lc.c.dots.size())}, {"each", each}};
}

int run_quality(const QualityOptions& o) {
  const SelectParams select = parse_select_params(o.select_params);
  if (o.video) return run_quality_video(o);
  const std::string manifest = o.cases.empty() ? io::default_truth_cases() : o.cases;
  const std::vector<const DofMode*> modes = chosen_modes(o.modes);
  const std::vector<bool> highlights = chosen_highlights(o.highlights);
  const std::vector<std::string> sources = chosen_sources(o.depth), refines = chosen_refiners(o.refine);
  const bool stereo = std::find(sources.begin(), sources.end(), "stereo") != sources.end();
  if (o.save_depth && o.images.empty()) throw Error("--save-depth writes into --images DIR: give both");
  if (!o.images.empty() && !io::is_dir(o.images)) throw Error(o.images + ": --images is not an existing folder");
  if (!o.crops.empty() && !io::is_dir(o.crops)) throw Error(o.crops + ": --crops is not an existing folder");
  // Every file is read and checked before anything runs: a bad case costs one line and no work.
  std::vector<LoadedCase> cases;
  for (io::TruthCase& c : io::load_truth_cases(manifest)) {
    LoadedCase lc;
    lc.image = io::load_image(c.image);
    lc.reference = io::load_image(c.reference);
    lc.depth = io::load_depth(c.depth);
    const int w = lc.image.width, h = lc.image.height;
    if (lc.reference.width != w || lc.reference.height != h || lc.depth.width != w || lc.depth.height != h)
      throw Error(manifest + ": case " + c.name + ": image, depth and reference differ in size");
    if (c.crop.w > 0 && (c.crop.h <= 0 || c.crop.x + c.crop.w > w || c.crop.y + c.crop.h > h))
      throw Error(manifest + ": case " + c.name + ": the crop lies outside the image");
    lc.band = occlusion_band(lc.depth, c.params);
    if (stereo) {
      if (c.right.empty())
        throw Error(manifest + ": case " + c.name +
                    ": no right view for --depth stereo (gen_scene --truth DIR --right-views adds them)");
      lc.right = io::load_image(c.right);
      if (lc.right.width != w || lc.right.height != h)
        throw Error(manifest + ": case " + c.name + ": the right view differs in size from the image");
    }
    lc.c = std::move(c);
    if (!o.lens.empty()) {
      lc.c.params = o.lens.over(lc.c.params);
      validate(lc.c.params);  // a flag beside the case's lens (a profile beside its cat-eye): one line
    }
    cases.push_back(std::move(lc));
  }
  std::string note;
  std::unique_ptr<Pipeline> pipe = make_backend(o.backend, &note);
  if (!note.empty()) std::fprintf(stderr, "satlab: note: %s\n", note.c_str());
  const bool gpu = pipe->backend_name().rfind("cpu", 0) != 0;
  std::printf("backend %s; time: median of %d full frames (%s), upload excluded\n",
              pipe->backend_name().c_str(), o.runs, gpu ? "GPU, CUDA events" : "CPU wall clock");
  if (o.response_shoulder >= 0.f)
    std::printf("camera response shoulder %.3g for every case (--response-shoulder)\n", double(o.response_shoulder));
  else {
    std::vector<float> seen;  // the manifest's distinct values
    for (const LoadedCase& lc : cases)
      if (std::find(seen.begin(), seen.end(), lc.c.params.response_shoulder) == seen.end())
        seen.push_back(lc.c.params.response_shoulder);
    std::string list;
    for (float v : seen) list += (list.empty() ? "" : ", ") + fmt(double(v), "%.3g");
    std::printf("camera response shoulder: each case's, from the manifest (%s)\n", list.c_str());
  }
  std::printf("%-24s %-11s %-14s %-17s %9s %7s %9s %7s %8s %9s\n", "case", "depth", "refine", "mode", "PSNR dB",
              "SSIM", "band dB", "b.SSIM", "band px", gpu ? "GPU ms" : "CPU ms");
  nlohmann::json rows = nlohmann::json::array();
  std::set<std::string> skipped;  // modes left out of cases they cannot carry
  // Sources and refined depths depend on the scene (its depth file, depths and right view), not on the
  // case's focus or lens: made once per scene.
  std::map<std::string, DepthSource> made;
  std::map<std::string, SourceDepth> refined;
  struct Done {
    Scores s;
    double ms;
    nlohmann::json stages;
    nlohmann::json shape;  // the point lights' bokeh against the truth's (cases with dots; else null)
  };
  std::map<std::string, Done> done;  // a refine choice that resolves to one already run reuses its row
  for (const LoadedCase& lc : cases)
    for (const std::string& source : sources)
      for (const std::string& choice : refines) {
      const DepthSourceOrigin origin = depth_source_origin(source);
      const std::string refiner = resolve_refiner(choice, origin.origin, origin.lower_resolution);
      const std::string scene_key = lc.c.depth + "|" + std::to_string(lc.c.params.near_depth) + "|" +
                                    std::to_string(lc.c.params.far_depth) + "|" + lc.c.right + "|" + source;
      auto src = made.find(scene_key);
      if (src == made.end()) {
        src = made.emplace(scene_key, make_depth_source(source, source_input(lc, select))).first;
        if (o.save_depth) {
          const std::string base = o.images + "/" + lc.c.scene + "_" + source;
          io::save_png16(base + "_depth.png", viewable(src->second.depth));
          if (!src->second.confidence.empty()) io::save_png16(base + "_confidence.png", src->second.confidence);
        }
      }
      auto ref = refined.find(scene_key + "|" + refiner);
      if (ref == refined.end()) {
        ref = refined.emplace(scene_key + "|" + refiner, make_source_depth(lc, src->second, refiner)).first;
        if (o.save_depth)
          io::save_png16(o.images + "/" + lc.c.scene + "_" + source + "_" + refiner + "_depth.png",
                         ref->second.depth);
      }
      const SourceDepth& sd = ref->second;
      const std::string refine_label = choice == refiner ? refiner : choice + ":" + refiner;
      const std::string depth_tag = source == "exact" && refiner == "none" ? "" : source + "_" + refiner + "_";
      for (const DofMode* m : modes)
      for (const bool hl : highlights) {
      // A feature only spread carries (a profile, a hole, a picture, cat-eye): validate would refuse the
      // other modes, so they are skipped, and said.
      const Params& cp = lc.c.params;
      if ((uses_aperture_profile(cp) || !cp.aperture_image.empty() || cp.cat_eye > 0.f) && !m->profile) {
        skipped.insert(std::string(m->name));
        continue;
      }
      Params p = lc.c.params;
      set_focus_range(p, o.focus_range);
      const char* units = source == "exact" ? "case" : keep_units(p, sd.lo, sd.hi);
      p.dof_mode = m->name;
      p.dof_layers = o.layers;
      p.highlights = hl;
      p.highlight_threshold = o.highlight_threshold, p.highlight_gain = o.highlight_gain;
      if (o.response_shoulder >= 0.f) p.response_shoulder = o.response_shoulder;
      validate(p);
      pipe->set_params(p);
      const std::string label = std::string(m->name) + (hl ? "+hl" : "");
      const std::string file_tag = depth_tag + m->name + (hl ? "_highlights" : "");
      const std::string run_key = lc.c.name + "|" + source + "|" + refiner + "|" + m->name + (hl ? "|hl" : "");
      auto again = done.find(run_key);
      const bool fresh = again == done.end();
      if (fresh) {
        std::vector<StageTiming> stages;
        const double ms = frame_ms(*pipe, lc.image, sd.depth, o.runs, &stages);
        nlohmann::json st = nlohmann::json::object();
        for (const StageTiming& t : stages) st[t.parent.empty() ? t.name : t.parent + "/" + t.name] = t.ms;
        again = done.emplace(run_key, Done{score(lc.reference, pipe->result(), lc.band), ms, st,
                                           dot_shapes(lc, pipe->result())})
                    .first;
      }
      const Scores& s = again->second.s;
      const double ms = again->second.ms;
      std::printf("%-24s %-11s %-14s %-17s %9s %7s %9s %7s %8zu %9.3f\n", lc.c.name.c_str(), source.c_str(),
                  refine_label.c_str(), label.c_str(), fmt(s.whole.psnr, "%.2f").c_str(),
                  fmt(s.whole.ssim, "%.4f").c_str(), fmt(s.band.psnr, "%.2f").c_str(),
                  fmt(s.band.ssim, "%.4f").c_str(), s.band.pixels, ms);
      if (!again->second.shape.is_null()) {
        const nlohmann::json& sh = again->second.shape;
        std::printf("%-24s shapes: %d of %d dots with IoU >= %.1f and centroid within %.0f px; worst IoU %.3f, "
                    "worst shift %.2f px\n",
                    lc.c.name.c_str(), sh["met"].get<int>(), sh["dots"].get<int>(), kShapeIou, kShapeShift,
                    sh["worst_iou"].get<double>(), sh["worst_shift"].get<double>());
      }
      rows.push_back({{"case", lc.c.name},
                      {"scene", lc.c.scene},
                      {"depth", source},
                      {"refine", refiner},
                      {"refine_choice", choice},
                      {"depth_size", {sd.source_width, sd.source_height}},
                      {"depth_range", {sd.lo, sd.hi}},
                      {"units", units},
                      {"depth_filled_px", sd.filled},
                      {"refine_cpu_ms", sd.refine_ms},
                      {"mode", m->name},
                      {"highlights", hl},
                      {"response_shoulder", p.response_shoulder},
                      {"focus_range", o.focus_range},
                      {"whole", score_json(s.whole)},
                      {"band", score_json(s.band)},
                      {"ms", ms},
                      {"stages_ms", again->second.stages}});
      if (!again->second.shape.is_null()) rows.back()["shape"] = again->second.shape;
      if (!fresh) continue;  // its crops and image are written already
      const ImageRGBA8& out = pipe->result();
      if (!o.crops.empty() && lc.c.crop.w > 0) {
        const std::string f = o.crops + "/" + lc.c.name + "_" + file_tag + ".png";
        io::save_png(f, crop_pair(lc.reference, out, lc.c.crop));
      }
      if (!o.images.empty()) io::save_png(o.images + "/" + lc.c.name + "_" + file_tag + ".png", out);
    }
    }
  if (!skipped.empty()) {
    std::string names, can;
    for (const std::string& n : skipped) names += (names.empty() ? "" : ", ") + n;
    for (const DofMode& m : dof_modes())
      if (m.profile) can += (can.empty() ? "" : ", ") + std::string(m.name);
    std::printf("skipped %s on the cases with an aperture profile, hole, picture or cat-eye: only %s carries them\n",
                names.c_str(), can.c_str());
  }
  if (!o.json.empty()) {
    nlohmann::json j = {
        {"command", "satlab quality"},
        {"rev", git_rev()},
        {"cases_file", manifest},
        {"backend", pipe->backend_name()},
        {"timer", gpu ? "gpu" : "cpu"},
        {"runs", o.runs},
        {"about",
         "PSNR over R,G,B (\"inf\": equal images; null: no pixels); SSIM per R,G,B channel, Gaussian 11x11 "
         "sigma "
         "1.5, K1 0.01, K2 0.03, averaged; band: pixels within max_radius of a depth edge (a CoC jump over "
         "1 px between 4-neighbours, of the exact depth); ms: median full-frame time, upload excluded; depth: "
         "the depth source (core/depth_sources.hpp), refine: the refiner that ran (refine_choice: as asked), "
         "depth_size: the source's resolution, depth_range: the refined depth's [min, max], units: case "
         "(Params mapped onto that range so every depth keeps its CoC), case_focus_clamped (the same with the "
         "focus clamped to the range) or renormalised (a flat depth: the case's Params), depth_filled_px: "
         "pixels the refiner left without depth, filled as the app fills depth holes, refine_cpu_ms: the "
         "refiner's CPU time"},
        {"edge_jump_px", kDepthEdgeJump},
        {"rows", rows}};
    if (!skipped.empty()) j["skipped_modes"] = skipped;  // on the cases with a profile, hole, picture or cat-eye
    io::save_text(o.json, j.dump(1) + "\n");
  }
  return 0;
}

}  // namespace

void add_quality_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<QualityOptions>();
  CLI::App* sub = app.add_subcommand(
      "quality",
      "Score every DoF mode against the thin-lens ground truth (PSNR, SSIM, occlusion band, time)");
  sub->add_option("--cases", o->cases, "Ground-truth manifest (default: assets/ground_truth/cases.json)");
  sub->add_option("--json", o->json, "Write the rows as JSON to this file");
  sub->add_option("--backend", o->backend, "Pipeline backend")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub->add_option("--modes", o->modes, "Comma-separated DoF modes (default: all)");
  sub->add_option("--crops", o->crops, "Write reference | mode crops of each case into this folder");
  sub->add_option("--images", o->images, "Write each case's whole result into this folder");
  sub->add_option("--highlights", o->highlights, "Bokeh highlights: on, off or on,off (a row each)");
  sub->add_option("--depth", o->depth,
                  "Depth sources, comma-separated (a row each): exact, phone, phone_noisy, stereo, brush "
                  "(default exact)");
  sub->add_option("--refine", o->refine,
                  "Refiners for each source's depth, comma-separated (a row each): auto, none or a refiner "
                  "(default auto)");
  sub->add_option("--select-params", o->select_params,
                  "The selection source's selector parameters, as depth select --params "
                  "(work=N,floor=N,threshold=N,iterations=N,model=F,likelihood=N,matte=N,eps=F)");
  sub->add_flag("--save-depth", o->save_depth,
                "Write each scene's source depth (SCENE_SOURCE_depth.png, its own size, 16-bit), its confidence "
                "and its refined depth (SCENE_SOURCE_REFINER_depth.png) into --images");
  sub->add_option("--highlight-threshold", o->highlight_threshold, "Linear luminance of a highlight")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--highlight-gain", o->highlight_gain, "Gain on clipped highlights")->check(CLI::Range(1.0, 16.0));
  sub->add_option("--layers", o->layers, "Depth layers of the occlusion-aware modes")->check(CLI::Range(2, 8));
  sub->add_option("--response-shoulder", o->response_shoulder,
                  "Camera response shoulder for every case, overriding the manifest's (0: plain sRGB)")
      ->check(CLI::Range(0.0, 0.9));
  sub->add_option("--focus-range", o->focus_range,
                  "Keep depths within +-T of each case's focus sharp (T in the case's normalised depth, 0-0.5)")
      ->check(CLI::Range(0.0, 0.5));
  sub->add_flag("--video", o->video,
                "The manifest's truth sequences frame by frame (tools/gen_cutouts --sequence): per-frame PSNR and "
                "the error's flicker, for each --temporal filter");
  sub->add_option("--temporal", o->temporal,
                  "With --video: temporal depth filters, a row each; ';' between them (off; gated[:history=H,depth=S,colour=C])");
  sub->add_option("--runs", o->runs, "Timed frames per mode and case (median)")->check(CLI::Range(1, 1000));
  // The lens (docs/lens.md), over each case's own (the truth's, from its manifest) where given.
  auto f = std::make_shared<LensFlags>();
  std::vector<std::pair<CLI::Option*, const char*>> lens;
  const auto add = [&](CLI::Option* opt, const char* name) { lens.push_back({opt, name}), opt->group("Lens (over each case's)"); };
  add(sub->add_option("--lens", f->lens, "A lens preset (" + lens_preset_list() + ")"), "");
  add(sub->add_option("--anamorphic", f->p.anamorphic, "The aperture's width over its height")
          ->check(CLI::Range(0.25, 4.0)), "--anamorphic");
  add(sub->add_option("--blade-rotation", f->p.blade_rotation, "The aperture's turn, degrees"), "--blade-rotation");
  add(sub->add_option("--bokeh-profile", f->p.bokeh_profile, "-1 a bright centre, 0 flat, 1 a bright rim")
          ->check(CLI::Range(-1.0, 1.0)), "--bokeh-profile");
  add(sub->add_option("--catadioptric", f->p.catadioptric, "A mirror lens's hole, a fraction of the radius")
          ->check(CLI::Range(0.0, 0.8)), "--catadioptric");
  add(sub->add_option("--aperture-image", f->aperture_image, "A built-in picture's name (none: the shape)"),
      "--aperture-image");
  add(sub->add_option("--chromatic", f->p.chromatic, "Axial chromatic aberration")->check(CLI::Range(-0.5, 0.5)),
      "--chromatic");
  add(sub->add_option("--cat-eye", f->cat_eye, "Cat-eye AMOUNT[,SCALE] (0: none)"), "--cat-eye");
  add(sub->add_option("--grain", f->p.grain, "Grain")->check(CLI::Range(0.0, 4.0)), "--grain");
  sub->callback([o, f, lens, &action] {
    ParamOverlay& ov = o->lens;
    ov.values = f->p;
    try {
      ov.values.aperture_image = f->aperture_image == "none" ? "" : io::use_aperture_image(f->aperture_image);
      parse_cat_eye(f->cat_eye, ov.values);
    } catch (const Error& e) {
      throw CLI::ValidationError(e.what());
    }
    for (const auto& [opt, name] : lens)
      if (opt->count() && *name) ov.give(name);
    if (!f->lens.empty()) {
      const LensPreset* l = find_lens_preset(f->lens);
      if (!l) throw CLI::ValidationError("--lens: '" + f->lens + "' is not one of " + lens_preset_list());
      ov.take_lens(*l);
    }
    action = [o] { return run_quality(*o); };
  });
}

}  // namespace satlab::cli
