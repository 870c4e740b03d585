// satlab quality: every DoF mode (core/dof_modes.hpp) on every thin-lens ground-truth case
// (assets/ground_truth/cases.json, or --cases), scored against the lens reference: PSNR and SSIM over
// the whole image and over the occlusion band (core/quality.hpp), and the mode's frame time on the
// backend that ran it. Prints a table; --json writes the rows, --crops DIR writes reference | mode crops,
// --images DIR the whole results. --highlights on,off scores each mode with and without bokeh highlights
// (core/highlights.hpp): one row each. Each case runs under its camera response (the manifest's
// response_shoulder, 0 where absent) unless --response-shoulder names one for all.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/backend.hpp"
#include "app/cli/commands.hpp"
#include "app/io/ground_truth.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/quality.hpp"

namespace satlab::cli {
namespace {

struct QualityOptions {
  std::string cases, json, backend = "auto", modes, crops, images, highlights = "off";
  float highlight_threshold = Params{}.highlight_threshold, highlight_gain = Params{}.highlight_gain;
  int runs = 5;
  int layers = Params{}.dof_layers;  // of the occlusion-aware modes
  float response_shoulder = -1.f;    // < 0: each case's camera response, from the manifest
};

struct LoadedCase {
  io::TruthCase c;
  ImageRGBA8 image, reference;
  ImageF depth;
  Mask band;
};

// The frame time of the mode just set: `runs` frames after two warm-up frames, each a full frame of a
// new image and depth (upload excluded), timed by the backend's own stage timings (CUDA events on the
// GPU, wall clock on the CPU). Returns the median of the frames' sums of top-level stages.
double frame_ms(Pipeline& pipe, const LoadedCase& lc, int runs, std::vector<StageTiming>* stages) {
  std::vector<double> totals;
  for (int i = 0; i < runs + 2; ++i) {
    pipe.set_image(lc.image);
    pipe.set_depth(lc.depth);
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

int run_quality(const QualityOptions& o) {
  const std::string manifest = o.cases.empty() ? io::default_truth_cases() : o.cases;
  const std::vector<const DofMode*> modes = chosen_modes(o.modes);
  const std::vector<bool> highlights = chosen_highlights(o.highlights);
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
    lc.c = std::move(c);
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
  std::printf("%-24s %-17s %9s %7s %9s %7s %8s %9s\n", "case", "mode", "PSNR dB", "SSIM", "band dB", "b.SSIM",
              "band px", gpu ? "GPU ms" : "CPU ms");
  nlohmann::json rows = nlohmann::json::array();
  for (const LoadedCase& lc : cases)
    for (const DofMode* m : modes)
      for (const bool hl : highlights) {
      Params p = lc.c.params;
      p.dof_mode = m->name;
      p.dof_layers = o.layers;
      p.highlights = hl;
      p.highlight_threshold = o.highlight_threshold, p.highlight_gain = o.highlight_gain;
      if (o.response_shoulder >= 0.f) p.response_shoulder = o.response_shoulder;
      validate(p);
      pipe->set_params(p);
      const std::string label = std::string(m->name) + (hl ? "+hl" : "");
      const std::string file_tag = std::string(m->name) + (hl ? "_highlights" : "");
      std::vector<StageTiming> stages;
      const double ms = frame_ms(*pipe, lc, o.runs, &stages);
      const ImageRGBA8& out = pipe->result();
      const Scores s = score(lc.reference, out, lc.band);
      std::printf("%-24s %-17s %9s %7s %9s %7s %8zu %9.3f\n", lc.c.name.c_str(), label.c_str(),
                  fmt(s.whole.psnr, "%.2f").c_str(), fmt(s.whole.ssim, "%.4f").c_str(),
                  fmt(s.band.psnr, "%.2f").c_str(), fmt(s.band.ssim, "%.4f").c_str(), s.band.pixels, ms);
      nlohmann::json st = nlohmann::json::object();
      for (const StageTiming& t : stages) st[t.parent.empty() ? t.name : t.parent + "/" + t.name] = t.ms;
      rows.push_back({{"case", lc.c.name},
                      {"scene", lc.c.scene},
                      {"mode", m->name},
                      {"highlights", hl},
                      {"response_shoulder", p.response_shoulder},
                      {"whole", score_json(s.whole)},
                      {"band", score_json(s.band)},
                      {"ms", ms},
                      {"stages_ms", st}});
      if (!o.crops.empty() && lc.c.crop.w > 0) {
        const std::string f = o.crops + "/" + lc.c.name + "_" + file_tag + ".png";
        io::save_png(f, crop_pair(lc.reference, out, lc.c.crop));
      }
      if (!o.images.empty()) io::save_png(o.images + "/" + lc.c.name + "_" + file_tag + ".png", out);
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
         "1 px between 4-neighbours); ms: median full-frame time, upload excluded"},
        {"edge_jump_px", kDepthEdgeJump},
        {"rows", rows}};
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
  sub->add_option("--highlight-threshold", o->highlight_threshold, "Linear luminance of a highlight")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--highlight-gain", o->highlight_gain, "Gain on clipped highlights")->check(CLI::Range(1.0, 16.0));
  sub->add_option("--layers", o->layers, "Depth layers of the occlusion-aware modes")->check(CLI::Range(2, 8));
  sub->add_option("--response-shoulder", o->response_shoulder,
                  "Camera response shoulder for every case, overriding the manifest's (0: plain sRGB)")
      ->check(CLI::Range(0.0, 0.9));
  sub->add_option("--runs", o->runs, "Timed frames per mode and case (median)")->check(CLI::Range(1, 1000));
  sub->callback([o, &action] { action = [o] { return run_quality(*o); }; });
}

}  // namespace satlab::cli
