// satlab bench sat: every registered SAT variant (and NPP where found) over the issue's sizes and types,
// the GPU blur and a whole pipeline frame, against the device-to-device copy bandwidth C measured in the
// same run. Medians of >= 20 CUDA-event-timed runs after warm-up; GB/s on each variant's minimum bytes.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/gui/bench_highlights_gl.hpp"
#include "app/io/ground_truth.hpp"
#include "app/io/image_io.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "gpu/device.hpp"
#include "gpu/sat/sat_host.hpp"

namespace satlab::cli {
namespace {

struct BenchSatOptions {
  std::string json;
  std::vector<std::string> sizes = {"1024x1024", "1920x1080", "3840x2160", "4096x4096",
                                    "4097x3001", "8192x8192", "16384x16384"};
  std::vector<std::string> only;  // variant names; empty: all
  std::vector<std::string> dof_modes;  // --dof-modes: only these modes' pipeline rows; empty: all rows
  int runs = 20, warmup = 5;
  int layers = Params{}.dof_layers;  // --layers: the occlusion-aware modes' depth layers
  bool no_blur = false, phases = false, no_check = false, pipeline_only = false, no_scenes = false;
  bool policies = false;  // --policies: also every builder's bench policies (gpu::sat_policy_variants)
  std::string trace;      // --trace: sat_lookback_2d's float-tile timeline (tuning builds)
  std::string timing = "queued";  // gpu::BenchTiming
};

struct Row {
  std::string variant, dtype, note;
  int width, height;
  double ms, bytes;
  int correct = -1;  // SAT rows: 1 the checked run matched core's reference, 0 it did not; -1 not checked
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A real frame for the DoF rows, beside the ramp (which has no depth edge, so none of the occlusion-aware
// modes' work at edges): a ground-truth case's pinhole image and depth (assets/ground_truth) resampled to the
// bench's size the way the app resamples a smaller depth map (io::resample_depth, bilinear; the image
// bilinear too, io::resample_image), through the case's lens with its aperture scaled so that the case's max
// radius (its largest CoC rounded up) becomes the app's default max radius: the largest CoC lies within a
// pixel below it.
struct BenchScene {
  std::string name;  // the case's
  ImageRGBA8 image;
  ImageF depth;
  Params params;
};

std::vector<BenchScene> bench_scenes(int w, int h) {
  std::vector<BenchScene> out;
  const std::vector<io::TruthCase> cases = io::load_truth_cases(io::default_truth_cases());
  for (const char* name : {"default_middle_large", "occlusion_far_large"}) {
    const auto c =
        std::find_if(cases.begin(), cases.end(), [&](const io::TruthCase& t) { return t.name == name; });
    if (c == cases.end()) throw Error(std::string("bench sat: no ground-truth case ") + name);
    BenchScene s{c->name, io::resample_image(io::load_image(c->image), w, h),
                 io::resample_depth(io::load_depth(c->depth), w, h), c->params};
    s.params.max_radius = Params{}.max_radius;
    s.params.aperture = c->params.aperture * s.params.max_radius / c->params.max_radius;
    out.push_back(std::move(s));
  }
  return out;
}

// Median per-stage times of a pipeline over `runs` frames (the SAT stage runs once per image, so it is
// re-armed each frame by setting the image again: upload is then timed too and reported apart).
// A DoF mode's rows are named pipeline.dof_MODE.* and its stage's phases (sat, blur; slice, per-layer SATs,
// composite, ...) get rows of their own, pipeline.dof_MODE.dof.PHASE; the box filter's pipeline.box.*.
// With `lights` > 0 (bokeh highlights on, core/highlights.hpp), the image's colours stay below the
// highlight threshold except at `lights` random pixels (a third of them clipped), and the rows are named
// pipeline.dof_MODE_highlights.*, the highlight stage's phases (compact, sort, splat) with rows of their own.
// With a scene, its image, depth and lens instead of the ramp's (rows named as above, then @CASE).
// With a lens feature (kLensFeatures), its parameters over the frame's (rows named ...MODE+FEATURE.*).
struct LensFeature {
  const char* name;
  void (*apply)(Params&);
};
const LensFeature kLensFeatures[] = {
    {"anamorphic", [](Params& p) { p.anamorphic = 0.5f, p.blade_rotation = 30.f; }},
    {"focus_ramps", [](Params& p) { set_focus_range(p, FocusRange{p.focus - 0.3f, p.focus - 0.1f, p.focus + 0.1f, p.focus + 0.4f}); }},
    {"profile", [](Params& p) { p.bokeh_profile = 1.f; }},
    {"catadioptric", [](Params& p) { p.catadioptric = 0.45f; }},
    {"aperture_image", [](Params& p) { p.aperture_image = "star"; }},
    {"grey_image", [](Params& p) { p.aperture_image = "bubble"; }},
    {"grain", [](Params& p) { p.grain = 1.f; }},
    {"chromatic", [](Params& p) { p.chromatic = 0.05f; }},
    {"cat_eye", [](Params& p) { p.cat_eye = 0.6f; }},
    {"all", [](Params& p) {  // every feature built so far at once
       p.anamorphic = 0.5f, p.blade_rotation = 30.f;
       set_focus_range(p, FocusRange{p.focus - 0.3f, p.focus - 0.1f, p.focus + 0.1f, p.focus + 0.4f});
       p.bokeh_profile = -0.5f, p.catadioptric = 0.45f, p.chromatic = 0.05f;
     }},
    {"all_cat_eye", [](Params& p) {  // the same with cat-eye for the profile and hole (not built together)
       p.anamorphic = 0.5f, p.blade_rotation = 30.f;
       set_focus_range(p, FocusRange{p.focus - 0.3f, p.focus - 0.1f, p.focus + 0.1f, p.focus + 0.4f});
       p.cat_eye = 0.6f, p.chromatic = 0.05f;
     }},
};
std::vector<Row> bench_pipeline(int w, int h, FilterKind filter, int warmup, int runs,
                                const DofMode& mode = dof_mode(DofModeId::GatherBox), int lights = 0,
                                bool highlights = true, int layers = Params{}.dof_layers,
                                const BenchScene* scene = nullptr, const LensFeature* feature = nullptr) {
  auto pipe = gpu::make_pipeline();
  ImageRGBA8 img(w, h);
  ImageF depth(w, h, 1);
  std::mt19937 rng(7);
  for (auto& b : img.data) b = uint8_t(rng());
  if (lights > 0) {
    for (size_t i = 0; i < img.pixels(); ++i)
      for (int c = 0; c < 3; ++c) img.data[i * 4 + c] = uint8_t(img.data[i * 4 + c] % 200);  // linear < 0.58
    for (int k = 0; k < lights; ++k) {
      uint8_t* px = img.data.data() + size_t(rng() % uint32_t(img.pixels())) * 4;
      for (int c = 0; c < 3; ++c) px[c] = k % 3 == 0 ? 255 : uint8_t(235 + rng() % 20);
    }
  }
  for (int y = 0; y < h; ++y)  // a tilted plane: the CoC varies smoothly, as in a photograph
    for (int x = 0; x < w; ++x) depth.at(x, y) = float(x + y);
  Params p;
  if (scene) img = scene->image, depth = scene->depth, p = scene->params;
  p.filter = filter;
  p.box_radius = 12;
  p.dof_mode = mode.name;
  p.dof_layers = layers;
  p.highlights = lights > 0 && highlights;
  if (feature) feature->apply(p);
  const std::string prefix = std::string("pipeline.") + to_string(filter) +
                             (filter == FilterKind::Dof ? std::string("_") + mode.name : "") +
                             (feature ? std::string("+") + feature->name : "") +
                             (lights > 0 ? highlights ? "_highlights" : "_lights_highlights_off" : "") +
                             (scene ? "@" + scene->name : "");
  pipe->set_image(img);
  pipe->set_depth(depth);
  pipe->set_params(p);
  std::vector<std::string> names;
  std::vector<std::vector<double>> ms;
  std::vector<double> bytes;
  std::vector<bool> beside;  // a phase on a side stream (StageTiming::concurrent)
  for (int i = 0; i < warmup + runs; ++i) {
    pipe->set_image(img);  // every frame does every stage
    pipe->set_depth(depth);
    pipe->run();
    pipe->result();
    if (i < warmup) continue;
    const auto& t = pipe->timings();
    for (size_t s = 0; s < t.size(); ++s) {
      if (!t[s].parent.empty() && t[s].parent != "dof" && t[s].parent != "highlights")
        continue;  // a SAT phase: part of the sat stage's time
      const std::string name = t[s].parent.empty() ? t[s].name : t[s].parent + "." + t[s].name;
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) {
        names.push_back(name);
        ms.emplace_back();
        bytes.push_back(t[s].bytes);
        beside.push_back(t[s].concurrent);
        it = names.end() - 1;
      }
      ms[size_t(it - names.begin())].push_back(t[s].ms);
    }
  }
  std::vector<Row> rows;
  double frame = 0, frame_bytes = 0;
  for (size_t s = 0; s < names.size(); ++s) {
    const double m = median(ms[s]);
    const size_t dot = names[s].find('.');
    const bool phase = dot != std::string::npos;  // part of its stage's time
    const std::string of = phase ? "phase of " + names[s].substr(0, dot) : "";
    rows.push_back({prefix + "." + names[s], "rgba8",
                    beside[s] ? of + ", on a side stream beside the others" : of, w, h, m, bytes[s]});
    if (names[s] != "upload" && !phase) frame += m, frame_bytes += bytes[s];
  }
  std::string note = std::string("sum of stage medians (") +
                     (scene ? "ground-truth case " + scene->name + " resampled, its lens's max radius " +
                                  std::to_string(int(p.max_radius)) + " px"
                            : std::string("depth: a diagonal ramp")) +
                     "); interop and draw are timed in the app";
  if (filter == FilterKind::Dof && mode.occlusion) note += "; " + std::to_string(layers) + " depth layers";
  if (p.highlights) {
    const HighlightStats hs = pipe->highlight_stats();
    note += "; " + std::to_string(lights) + " lights placed, " + std::to_string(hs.found) + " highlights found, " +
            std::to_string(hs.kept) + " splatted (" + std::to_string(hs.far) + " behind focus), cap " +
            std::to_string(hs.cap);
  }
  rows.push_back({prefix + ".frame_without_upload", "rgba8", note, w, h, frame, frame_bytes});
  return rows;
}

int write_json(const BenchSatOptions& o, const std::string& device, double c_gbs, const std::vector<Row>& rows) {
  if (o.json.empty()) return 0;
  nlohmann::json j;
  j["device"] = device;
  j["git_rev"] = git_rev();
  j["copy_gbps"] = c_gbs;
  j["runs"] = o.runs;
  j["statistic"] = "median of CUDA-event-timed runs after warm-up";
  j["timing"] = o.timing == "queued" ? "queued: runs issued back to back, each time the GPU's work alone"
                                     : "synced: each run waited for, each time with the host's launch work";
  j["rows"] = nlohmann::json::array();
  for (const Row& r : rows) {
    const double gbs = r.bytes / (r.ms * 1e-3) / 1e9;
    nlohmann::json row = {{"family", "sat"}, {"variant", r.variant}, {"dtype", r.dtype}, {"width", r.width},
                          {"height", r.height}, {"n", size_t(r.width) * size_t(r.height)}, {"ms", r.ms},
                          {"median_ms", r.ms}, {"bytes", r.bytes}, {"gbps", gbs}, {"fraction_of_copy", gbs / c_gbs},
                          {"gpix_per_s", double(r.width) * r.height / (r.ms * 1e-3) / 1e9}, {"note", r.note}};
    if (r.correct >= 0) row["correct"] = r.correct == 1;
    j["rows"].push_back(row);
  }
  std::ofstream f(o.json);
  f << j.dump(2) << "\n";
  if (!f) throw Error("cannot write " + o.json);
  std::printf("wrote %s\n", o.json.c_str());
  return 0;
}

int run_bench_sat(const BenchSatOptions& o) {
  const auto& dev = gpu::probe();
  if (!dev.available) throw Error("bench sat needs a CUDA device: " + dev.reason);
  // The registered builders, then their bench policies (BUILDER@POLICY) where asked for: --policies, or
  // named in --variants.
  const std::vector<Variant> policies = gpu::sat_policy_variants();
  std::vector<const Variant*> builders;
  std::vector<std::string> sat_names;  // --variants: a name no builder has would give no row and exit 0
  for (const Variant& v : gpu::variants())
    if (v.family == Family::Sat) builders.push_back(&v), sat_names.push_back(v.name);
  for (const Variant& v : policies) {
    sat_names.push_back(v.name);
    if (o.policies || std::find(o.only.begin(), o.only.end(), v.name) != o.only.end()) builders.push_back(&v);
  }
  for (const std::string& name : o.only) check_choice("SAT variant", name, sat_names);
  gpu::set_sat_trace_file(o.trace);
  gpu::set_bench_timing(o.timing == "queued" ? gpu::BenchTiming::Queued : gpu::BenchTiming::Synced);
  const double c_gbs = gpu::copy_bandwidth_gbs(size_t(1) << 30, o.runs);
  std::printf("device %s, copy bandwidth C = %.0f GB/s (1 GiB device-to-device, read + write), %s timing\n",
              dev.name.c_str(), c_gbs, o.timing.c_str());
  std::printf("%-28s %-6s %-12s %9s %10s %9s %6s %-3s\n", "variant", "type", "size", "ms", "Gpx/s", "GB/s", "of C",
              o.no_check ? "" : "ok");
  std::vector<Row> rows;
  int mismatches = 0;
  auto print = [&](const Row& r) {
    const double gbs = r.bytes / (r.ms * 1e-3) / 1e9;
    std::printf("%-28s %-6s %5dx%-6d %9.4f %10.2f %9.1f %6.2f %-3s %s\n", r.variant.c_str(), r.dtype.c_str(), r.width,
                r.height, r.ms, double(r.width) * r.height / (r.ms * 1e-3) / 1e9, gbs, gbs / c_gbs,
                r.correct < 0 ? "" : r.correct ? "ok" : "BAD", r.note.c_str());
    std::fflush(stdout);
    rows.push_back(r);
  };
  for (const std::string& size : o.pipeline_only ? std::vector<std::string>{} : o.sizes) {
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0) throw Error("bad size " + size);
    const size_t n = size_t(w) * size_t(h);
    for (DType t : {DType::U8, DType::RGBA8, DType::RGBA16, DType::F32}) {
      const int ch = t == DType::RGBA8 || t == DType::RGBA16 ? 4 : 1;
      if (n * ch * 5 > dev.total_memory * 3 / 4) continue;
      for (const Variant* vp : builders) {
        const Variant& v = *vp;
        const std::string base = v.name.substr(0, v.name.find('@'));  // a policy's builder
        if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), v.name) == o.only.end() &&
            !(o.policies && std::find(o.only.begin(), o.only.end(), base) != o.only.end()))
          continue;
        const std::string why = v.refuses ? v.refuses(n, t) : "";
        if (!why.empty()) continue;
        const gpu::SatTiming tm = gpu::time_sat(v, t, ch, w, h, o.warmup, o.runs, o.phases, !o.no_check);
        Row row{v.name, to_string(t), tm.mismatch, w, h, tm.median_ms, v.bytes(n, t)};
        if (tm.checked) row.correct = tm.mismatch.empty() ? 1 : 0, mismatches += row.correct == 0;
        print(row);
        for (const auto& [phase, ms] : tm.phases)  // bytes 0: a phase's share, not a throughput
          print({v.name + " / " + phase, to_string(t), "phase", w, h, ms, 0.0});
      }
    }
  }
  // A builder whose output differs from core's reference fails the run (after its rows are written).
  auto finish = [&] {
    write_json(o, dev.name, c_gbs, rows);
    if (mismatches) throw Error(std::to_string(mismatches) + " SAT row(s) differ from core's reference (BAD above)");
    return 0;
  };
  if (o.no_blur) return finish();
  const auto wanted = [&](const std::string& mode) {
    return o.dof_modes.empty() ||
           std::find(o.dof_modes.begin(), o.dof_modes.end(), mode) != o.dof_modes.end();
  };
  // Every DoF mode's frame on the ground-truth scenes (bench_scenes), after the ramp's rows; without the
  // bundled ground truth, a note and the other rows.
  std::vector<BenchScene> scenes;
  if (!o.no_scenes) try {
      scenes = bench_scenes(3840, 2160);
    } catch (const Error& e) {
      std::fprintf(stderr, "satlab: note: no scene rows (--no-scenes skips them): %s\n", e.what());
    }
  const auto scene_rows = [&] {
    for (const BenchScene& s : scenes)
      for (const DofMode& m : dof_modes())
        if (wanted(m.name))
          for (const Row& r :
               bench_pipeline(3840, 2160, FilterKind::Dof, o.warmup, o.runs, m, 0, true, o.layers, &s))
            print(r);
  };
  // The default mode's frame with each lens feature on (the same ramp frame as its plain row).
  const auto feature_rows = [&] {
    const DofMode& spread = dof_mode(DofModeId::Spread);
    if (!wanted(spread.name)) return;
    for (const LensFeature& f : kLensFeatures)
      for (const Row& r :
           bench_pipeline(3840, 2160, FilterKind::Dof, o.warmup, o.runs, spread, 0, true, o.layers, nullptr, &f))
        print(r);
  };
  if (!o.dof_modes.empty()) {  // the named modes' frames alone (tuning runs)
    for (const DofMode& m : dof_modes())
      if (wanted(m.name))
        for (const Row& r :
             bench_pipeline(3840, 2160, FilterKind::Dof, o.warmup, o.runs, m, 0, true, o.layers))
          print(r);
    feature_rows();
    scene_rows();
    return finish();
  }
  // The blur kernel alone at 3840x2160, on minimum bytes (SAT 16 + result 4, + CoC 4 for dof).
  struct BlurCase {
    const char *name, *coc;
    bool fractional;
  };
  for (const BlurCase b : {BlurCase{"blur.box_r12", "none", false}, BlurCase{"blur.dof.smooth", "smooth", false},
                           BlurCase{"blur.dof_fractional.smooth", "smooth", true},
                           BlurCase{"blur.dof.random", "random", false},
                           BlurCase{"blur.dof_fractional.random", "random", true}}) {
    const gpu::SatTiming tm = gpu::time_blur(3840, 2160, b.coc, b.fractional, 12, o.warmup, o.runs);
    const bool dof = std::string(b.coc) != "none";
    print({b.name, "rgba8",
           std::string("CoC ") + b.coc + (std::string(b.coc) == "random" ? " per pixel: scattered taps (L2-bound)" : ""),
           3840, 2160, tm.median_ms, (dof ? 24.0 : 20.0) * 3840.0 * 2160.0});
  }
  for (const Row& r : bench_pipeline(3840, 2160, FilterKind::Box, o.warmup, o.runs)) print(r);
  for (const DofMode& m : dof_modes())
    for (const Row& r : bench_pipeline(3840, 2160, FilterKind::Dof, o.warmup, o.runs, m, 0, true, o.layers))
      print(r);
  feature_rows();
  scene_rows();
  // Bokeh highlights: gather_linear's frame (the default mode when they were added) with up to 64k sprites against the same frame without them
  // (same image, same run).
  {
    for (const int lights : {65536, 16384}) {
      const DofMode& linear = dof_mode(DofModeId::GatherLinear);
      const std::vector<Row> off =
          bench_pipeline(3840, 2160, FilterKind::Dof, o.warmup, o.runs, linear, lights, false);
      print(off.back());
      const std::vector<Row> on = bench_pipeline(3840, 2160, FilterKind::Dof, o.warmup, o.runs, linear, lights);
      for (const Row& r : on) print(r);
      print({"pipeline.dof_gather_linear_highlights.added_" + std::to_string(lights / 1024) + "k", "rgba8",
             "frame with highlights minus the same frame without (same image, same run): " +
                 on.back().note.substr(on.back().note.rfind("; ") + 2),
             3840, 2160, on.back().ms - off.back().ms, 0.0});
    }
  }
  // The GL instanced-quads splat against the CUDA row splat, phase by phase, same run (app/gui/bench_highlights_gl.hpp).
  for (const gui::HighlightBenchRow& r : gui::bench_highlights_gl(3840, 2160, o.warmup, o.runs))
    print({r.name, "rgba8", r.note, 3840, 2160, r.ms, 0.0});
  return finish();
}

}  // namespace

void add_bench_sat_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchSatOptions>();
  CLI::App& bench = command_group(app, "bench", "Benchmarks (medians, against copy bandwidth C)");
  CLI::App* sub = bench.add_subcommand("sat", "GPU SAT variants, NPP, the blur and a pipeline frame");
  sub->add_option("--json", o->json, "Also write the rows as JSON to this file");
  sub->add_option("--sizes", o->sizes, "Sizes WIDTHxHEIGHT");
  sub->add_flag("--no-blur", o->no_blur, "Only the SAT rows (no blur or pipeline rows)");
  sub->add_flag("--pipeline-only", o->pipeline_only, "Only the blur and pipeline rows (every DoF mode at 3840x2160, the highlights' GL and CUDA splats)");
  std::vector<std::string> modes;
  for (const DofMode& m : dof_modes()) modes.push_back(m.name);
  sub->add_option("--dof-modes", o->dof_modes,
                  "With --pipeline-only: only these DoF modes' frames (no blur or box rows), for tuning runs")
      ->check(CLI::IsMember(modes));
  sub->add_flag(
      "--no-scenes", o->no_scenes,
      "No DoF rows on the ground-truth scenes (the default also times every DoF mode on two of them, "
      "resampled to 3840x2160)");
  sub->add_option("--layers", o->layers, "Depth layers of the occlusion-aware DoF modes' pipeline rows")
      ->check(CLI::Range(2, 8));
  sub->add_flag("--phases", o->phases, "Also time each phase of every SAT builder (rows named VARIANT / PHASE)");
  sub->add_option("--variants", o->only, "Only these SAT variants (registered builders or BUILDER@POLICY)");
  sub->add_flag("--policies", o->policies,
                "Also the builders' bench policies, BUILDER@POLICY rows (the tuning sweeps: rows per thread, "
                "bands, blocks per SM, staged stores); with --variants, those of the builders named");
  sub->add_option("--trace", o->trace,
                  "Write sat_lookback_2d's float-tile timeline to this file (tools/sat_trace.py; builds configured "
                  "with -DSATLAB_SAT_TRACE=ON)");
  sub->add_flag("--no-check", o->no_check,
                "Skip the check of each builder's output against core's reference (one poisoned run per row)");
  sub->add_option("--runs", o->runs, "Timed runs per row (median)")->check(CLI::Range(20, 100000));
  sub->add_option("--warmup", o->warmup, "Untimed runs first")->check(CLI::NonNegativeNumber);
  sub->add_option("--timing", o->timing,
                  "queued (default): timed runs issued back to back, each time the GPU's work alone; synced: each "
                  "run waited for before the next, each time also holding the host's launch work")
      ->check(CLI::IsMember({"queued", "synced"}));
  sub->callback([o, &action] { action = [o] { return run_bench_sat(*o); }; });
}

}  // namespace satlab::cli
