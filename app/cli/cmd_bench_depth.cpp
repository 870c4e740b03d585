// satlab bench depth: the GPU guided filter (gpu/depth/guided_filter) at 3840x2160 (or --sizes), colour
// and gray, at radii 8 and 32 (or --radii): the cost should not depend on the radius. Then every depth
// refiner (gpu/refine, or --refiners) from a depth map a quarter of each side (or --depth-scales) to the
// image's size, with its phases, and against the copy bandwidth C measured in the same run on its minimum
// bytes (image read, depth read, output written). Medians of CUDA-event-timed runs after warm-up, whole
// runs and per stage. Then subject select (gpu/select) on a 12 Mpx photo-like scene (4000x3000, or
// --select-sizes) with its stages. --cpu adds the CPU references (wall time). Then the depth brush's snap
// on the same scene (CPU, its only backend, on every machine): a frame's new segment of a stroke drawn
// across the subject, and the whole stroke repainted at once (what a frame cost before LiveStroke).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/depth_brush.hpp"
#include "core/guided_filter.hpp"
#include "core/refine.hpp"
#include "core/select.hpp"
#include "gpu/depth/guided_filter_gpu.hpp"
#include "gpu/device.hpp"
#include "gpu/refine/refine_gpu.hpp"
#include "gpu/sat/sat_host.hpp"
#include "gpu/select/select_gpu.hpp"
#include "gpu/temporal/temporal_gpu.hpp"

namespace satlab::cli {
namespace {

struct BenchDepthOptions {
  std::string json, sat;
  std::vector<std::string> sizes = {"3840x2160"};
  std::vector<int> radii = {8, 32};
  std::vector<std::string> refiners;  // empty: all
  std::vector<int> depth_scales = {4};
  bool no_refine = false;
  std::vector<std::string> select_sizes = {"4000x3000"};
  float eps = 1e-3f;
  int runs = 20, warmup = 5;
  bool cpu = false;
};

std::string fmt_ms(double ms) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.2f", ms);
  return b;
}

int run_bench_depth(const BenchDepthOptions& o) {
  const auto& dev = gpu::probe();
  if (!dev.available && !o.cpu) throw Error("bench depth needs a CUDA device (or --cpu): " + dev.reason);
  nlohmann::json rows = nlohmann::json::array();
  auto row = [&](const std::string& name, const std::string& backend, int w, int h, int r, double ms,
                 const std::string& note) {
    std::printf("%-34s %-4s %5dx%-6d r=%-4d %9.4f ms %8.1f Mpx/s  %s\n", name.c_str(), backend.c_str(), w, h,
                r, ms, double(w) * h / (ms * 1e-3) / 1e6, note.c_str());
    std::fflush(stdout);
    rows.push_back({{"family", "depth"},
                    {"variant", name},
                    {"backend", backend},
                    {"width", w},
                    {"height", h},
                    {"radius", r},
                    {"eps", o.eps},
                    {"ms", ms},
                    {"median_ms", ms},
                    {"note", note}});
  };
  if (dev.available) std::printf("device %s\n", dev.name.c_str());
  for (const std::string& size : o.sizes) {
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0) throw Error("bad size " + size);
    for (bool gray : {false, true})
      for (int r : o.radii) {
        GuidedParams g;
        g.radius = r, g.eps = o.eps, g.gray = gray;
        const std::string name = std::string("guided.") + (gray ? "gray" : "colour");
        if (dev.available) {
          const gpu::GuidedTiming t = gpu::time_guided(w, h, g, o.warmup, o.runs, o.sat);
          row(name, "gpu", w, h, r, t.median_ms, "SAT builder " + t.builder + ", guide float RGB");
          for (const auto& [stage, ms] : t.stages) row(name + " / " + stage, "gpu", w, h, r, ms, "stage");
        }
        if (o.cpu) {
          ImageF guide(w, h, 3), p(w, h, 1);
          std::mt19937 rng(5);
          std::uniform_real_distribution<float> u(0.f, 1.f);
          for (float& v : guide.data) v = u(rng);
          for (float& v : p.data) v = u(rng);
          std::vector<double> ms;
          for (int i = 0; i < std::max(1, std::min(o.runs, 3)); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            guided_filter(guide, p, g);
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
          }
          std::sort(ms.begin(), ms.end());
          row(name, "cpu", w, h, r, ms[ms.size() / 2],
              "reference (float64 SATs), wall time, median of " + std::to_string(ms.size()));
        }
      }
  }
  // The refiners: W x H from (W / k) x (H / k), against C.
  double c_gbs = 0;
  if (dev.available && !o.no_refine) {
    c_gbs = gpu::copy_bandwidth_gbs(size_t(1) << 30, o.runs);
    std::printf("copy bandwidth C = %.0f GB/s (1 GiB device-to-device, read + write)\n", c_gbs);
  }
  auto refine_row = [&](const std::string& name, const std::string& backend, int w, int h, int dw, int dh,
                        double ms, double bytes, const std::string& note) {
    const double gbs = bytes > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
    std::printf("%-34s %-4s %5dx%-5d from %4dx%-5d %9.4f ms %8.1f Mpx/s", name.c_str(), backend.c_str(), w, h, dw,
                dh, ms, double(w) * h / (ms * 1e-3) / 1e6);
    if (gbs > 0 && c_gbs > 0) std::printf(" %7.1f GB/s %5.3f of C", gbs, gbs / c_gbs);
    std::printf("  %s\n", note.c_str());
    std::fflush(stdout);
    nlohmann::json r = {{"family", "refine"}, {"variant", name},       {"backend", backend},
                        {"width", w},         {"height", h},           {"depth_width", dw},
                        {"depth_height", dh}, {"ms", ms},              {"median_ms", ms},
                        {"note", note}};
    if (bytes > 0) {
      r["min_bytes"] = bytes, r["gbs"] = gbs;
      if (c_gbs > 0) r["of_c"] = gbs / c_gbs;
    }
    rows.push_back(r);
  };
  for (const std::string& size : o.no_refine ? std::vector<std::string>{} : o.sizes) {
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0) throw Error("bad size " + size);
    for (int k : o.depth_scales) {
      const int dw = std::max(1, w / k), dh = std::max(1, h / k);
      for (const Refiner& f : satlab::refiners()) {
        if (!o.refiners.empty() && std::find(o.refiners.begin(), o.refiners.end(), f.name) == o.refiners.end())
          continue;
        const std::string name = std::string("refine.") + f.name;
        if (dev.available) {
          const gpu::RefineTiming t = gpu::time_refine(f.name, w, h, dw, dh, o.warmup, o.runs);
          refine_row(name, "gpu", w, h, dw, dh, t.median_ms, t.min_bytes,
                     "median of " + std::to_string(o.runs) + "; bytes: image + depth read, output written");
          for (const auto& [phase, ms] : t.phases) refine_row(name + " / " + phase, "gpu", w, h, dw, dh, ms, 0, "phase");
        }
        if (o.cpu) {
          ImageRGBA8 img(w, h);
          ImageF depth(dw, dh, 1);
          std::mt19937 rng(5);
          for (auto& b : img.data) b = uint8_t(rng());
          for (int y = 0; y < dh; ++y)
            for (int x = 0; x < dw; ++x) depth.at(x, y) = float((x / 37 + y / 23) % 4) * 0.25f + 0.1f;
          std::vector<double> ms;
          for (int i = 0; i < std::max(1, std::min(o.runs, 3)); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            refine_cpu(f.name, {&img, &depth, nullptr});
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
          }
          std::sort(ms.begin(), ms.end());
          refine_row(name, "cpu", w, h, dw, dh, ms[ms.size() / 2], 0,
                     "reference, wall time, median of " + std::to_string(ms.size()));
        }
      }
    }
  }
  // The temporal depth filter: one frame's step on device arrays (clips; gpu/temporal), against C.
  if (dev.available && c_gbs > 0)
    for (const std::string& size : o.sizes) {
      int w = 0, h = 0;
      if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0) throw Error("bad size " + size);
      const double ms = gpu::time_temporal(w, h, o.warmup, o.runs);
      refine_row("temporal.gated", "gpu", w, h, w, h, ms, double(w) * h * 22,
                 "one frame's step, median of " + std::to_string(o.runs) +
                     "; bytes: depth, image and last RGB read, running depth read and written, RGB written");
    }
  // Subject select: one click on the scene's subject, the whole selection (working image to matte).
  for (const std::string& size : o.select_sizes) {
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0) throw Error("bad size " + size);
    const SelectParams p;
    auto select_row = [&](const std::string& name, const std::string& backend, double ms, const std::string& note) {
      const bool whole = name.rfind("select", 0) == 0;  // the brush's rows cover a stroke, not the image
      std::printf("%-34s %-4s %5dx%-6d %9.4f ms %8s Mpx/s  %s\n", name.c_str(), backend.c_str(), w, h, ms,
                  whole ? std::to_string(int(double(w) * h / (ms * 1e-3) / 1e6)).c_str() : "-", note.c_str());
      std::fflush(stdout);
      rows.push_back({{"family", "select"}, {"variant", name}, {"backend", backend}, {"width", w}, {"height", h},
                      {"ms", ms}, {"median_ms", ms}, {"note", note}});
    };
    if (dev.available) {
      const gpu::SelectTiming t = gpu::time_select(w, h, p, o.warmup, o.runs);
      select_row("select.geodesic", "gpu", t.median_ms,
                 "median of " + std::to_string(o.runs) + ", working image " + std::to_string(t.work_width) + "x" +
                     std::to_string(t.work_height) + ", one host round trip (colour models) included");
      for (const auto& [stage, ms] : t.stages) select_row("select.geodesic / " + stage, "gpu", ms, "stage");
    }
    if (o.cpu) {
      std::vector<SelectClick> clicks;
      const ImageRGBA8 img = select_bench_scene(w, h, &clicks);
      std::vector<double> ms;
      for (int i = 0; i < std::max(1, std::min(o.runs, 3)); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        select_subject_cpu(img, clicks, p);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      select_row("select.geodesic", "cpu", ms[ms.size() / 2],
                 "reference, " + std::to_string(default_threads()) + " threads, wall time, median of " +
                     std::to_string(ms.size()));
    }
    {
      // A Snap stroke of radius 40 across the subject, a point every 6 px (a mouse move per frame), over
      // the refined and the raw depth (two layers, as the app paints when a refiner runs).
      std::vector<SelectClick> clicks;
      const ImageRGBA8 img = select_bench_scene(w, h, &clicks);
      ImageF base(w, h, 1), raw(w, h, 1), live = base, live_raw = raw;
      BrushStroke s;
      s.radius = 40.f, s.value = 0.f, s.feather = 0.5f, s.mode = BrushStroke::Mode::Snap;
      const float y = clicks[0].y, x0 = std::max(0.f, clicks[0].x - w / 4.f), x1 = std::min(w - 1.f, clicks[0].x + w / 4.f);
      LiveStroke painter;
      // The first stroke on an image allocates the stroke's coverage buffer (the image's size; the app
      // makes it when the brush is picked up): timed on its own, then the stroke again after reset().
      s.points = {{x0, y}};
      auto t1 = std::chrono::steady_clock::now();
      painter.extend(s, &img, {{&base, &live}, {&raw, &live_raw}});
      const double first = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
      painter.reset();
      s.points.clear();
      std::vector<double> seg;
      for (float x = x0; x <= x1; x += 6.f) {
        s.points.emplace_back(x, y);
        const auto t0 = std::chrono::steady_clock::now();
        painter.extend(s, &img, {{&base, &live}, {&raw, &live_raw}});
        seg.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(seg.begin(), seg.end());
      select_row("brush.snap segment", "cpu", seg[seg.size() / 2],
                 "a frame's new segment of a radius-40 stroke, two layers, 1 thread, median of " +
                     std::to_string(seg.size()) + " (max " + fmt_ms(seg.back()) + " ms; an image's first stroke: " +
                     fmt_ms(first) + " ms); 16.7 ms is a 60 Hz frame");
      const auto t0 = std::chrono::steady_clock::now();
      const StrokeCover c = stroke_cover(s, w, h, &img);
      ImageF whole = base;
      apply_cover(whole, c, s.value);
      select_row("brush.snap whole stroke", "cpu",
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                 "the same " + std::to_string(s.points.size()) + "-point stroke covered at once, one layer, once");
    }
  }
  if (!o.json.empty()) {
    nlohmann::json j;
    if (c_gbs > 0) j["copy_gbs"] = c_gbs;
    j["device"] = dev.available ? dev.name : "none";
    j["git_rev"] = git_rev();
    j["runs"] = o.runs;
    j["statistic"] = "median of CUDA-event-timed runs after warm-up (gpu); wall time (cpu)";
    j["rows"] = rows;
    std::ofstream f(o.json);
    f << j.dump(2) << "\n";
    if (!f) throw Error("cannot write " + o.json);
    std::printf("wrote %s\n", o.json.c_str());
  }
  return 0;
}

}  // namespace

void add_bench_depth_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchDepthOptions>();
  CLI::App& bench = command_group(app, "bench", "Benchmarks (medians, against copy bandwidth C)");
  CLI::App* sub = bench.add_subcommand(
      "depth", "The guided filter and the depth refiners (GPU; --cpu: the CPU references too)");
  sub->add_option("--json", o->json, "Also write the rows as JSON to this file");
  sub->add_option("--sizes", o->sizes, "Sizes WIDTHxHEIGHT (default 3840x2160)");
  sub->add_option("--radii", o->radii, "Guided filter radii (default 8 32)")
      ->check(CLI::Range(0, kMaxGuidedRadius));
  sub->add_option("--eps", o->eps, "Guided filter eps")->check(CLI::PositiveNumber);
  sub->add_option("--sat-builder", o->sat,
                  "SAT builder by registry name, run over the stored stack (default: sat_lookback_2d's tiles "
                  "forming the stack as they load)");
  sub->add_option("--runs", o->runs, "Timed runs")->check(CLI::Range(1, 10000));
  sub->add_option("--warmup", o->warmup, "Untimed runs first")->check(CLI::Range(0, 10000));
  sub->add_flag("--cpu", o->cpu, "Also time the CPU references");
  std::vector<std::string> names;
  for (const Refiner& f : refiners()) names.push_back(f.name);
  sub->add_option("--refiners", o->refiners, "Only these refiners (default all: " + refiner_list() + ")")
      ->check(CLI::IsMember(names));
  sub->add_option("--depth-scales", o->depth_scales,
                  "Refiners' depth maps at the image's size over each K per side (default 4)")
      ->check(CLI::Range(1, 64));
  sub->add_flag("--no-refine", o->no_refine, "Only the guided filter rows");
  sub->add_option("--select-sizes", o->select_sizes, "Subject select sizes WIDTHxHEIGHT (default 4000x3000)");
  sub->callback([o, &action] { action = [o] { return run_bench_depth(*o); }; });
}

}  // namespace satlab::cli
