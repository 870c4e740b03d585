// satlab bench video: clips rendered end to end (app/cli/render_clip.hpp) against what FFmpeg's libraries
// alone do with the same clip. Per size and codec, on a generated clip (the bundled scene scaled to the
// size, panned 4 px a frame, written at CRF 18, veryfast, before anything is timed):
//   - decode: satlab's reader alone (FFmpeg's decoder, then the conversion to RGBA), frames/s;
//   - transcode: FFmpeg's libraries alone, each decoded frame encoded as it came (no conversion, no filter),
//     with the same encoder and settings: the codec's own rate, the anchor of the codec-bound target;
//   - render synthetic: `satlab render CLIP --synthetic-depth radial --out OUT` with the same encoder: the
//     per-frame stages (decode wait, depth, filter, encode), and the pipeline's own warm stage time per
//     frame against the same pipeline's warm frame on one still image of the size (the target: within 1.2x);
//   - render depth clip: the same with a quarter-resolution depth video (refined per frame, the temporal
//     filter on), the shape of a phone's or a depth estimator's clip.
// Memory (--memory): the first size rendered over N and over 4N frames, each in a child process of its own
// (`satlab render`, so that its peak RSS is its own: wait4's ru_maxrss), the device's used memory sampled
// every 2 ms while it runs; flat in the clip's length when the longer clip's peaks are no higher.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/child_run.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/render_clip.hpp"
#include "app/io/assets.hpp"
#include "app/io/clip.hpp"
#include "app/io/image_io.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/clip_decoder.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/synthetic_depth.hpp"
#include "gpu/bench/primitives.hpp"
#include "gpu/device.hpp"

namespace satlab::cli {
namespace {

using Clock = std::chrono::steady_clock;
double s_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct BenchVideoOptions {
  std::vector<std::string> sizes = {"1920x1080", "3840x2160"};
  std::vector<std::string> codecs = {"h264", "hevc"};
  std::vector<std::string> decoders;  // empty: cpu, and nvdec too on a GPU backend
  int frames = 120;
  double fps = 60;
  std::string backend = "auto", mode, dir = std::filesystem::temp_directory_path().string(), json;
  bool memory = false, keep = false;
};

void parse_size(const std::string& s, int* w, int* h) {
  if (std::sscanf(s.c_str(), "%dx%d", w, h) != 2 || *w < 16 || *h < 16 || *w > 16384 || *h > 16384)
    throw Error("--sizes: '" + s + "' is not WxH (16..16384 a side)");
}

std::string container_for(const std::string& codec) { return codec == "vp9" ? ".webm" : codec == "ffv1" ? ".mkv" : ".mp4"; }

// The generated clip's encoder: a hardware encoder's clip is made with the matching software one (the
// decoders are the same), so that decode and transcode compare like for like.
std::string source_codec(const std::string& codec) {
  return codec == "h264_nvenc" || codec == "nvenc" ? "h264" : codec == "hevc_nvenc" ? "hevc" : codec;
}

// The generated clip: the bundled scene at the size, panned; and a quarter-size depth clip of the scene's
// depth panned alike (grey, the depth in the luma).
void make_clips(const std::string& path, const std::string& depth_path, int w, int h, int frames, double fps,
                const std::string& codec) {
  const ImageRGBA8 scene = io::resample_image(io::load_image(io::default_scene_image()), w, h);
  const ImageF depth = io::resample_depth(io::load_depth(io::default_scene_depth()), (w + 3) / 4, (h + 3) / 4);
  float lo = INFINITY, hi = -INFINITY;
  for (float v : depth.data) lo = std::min(lo, v), hi = std::max(hi, v);
  io::ClipSpec spec;
  spec.width = w, spec.height = h, spec.fps = fps, spec.codec = codec;
  io::ClipSpec dspec = spec;
  dspec.width = depth.width, dspec.height = depth.height;
  auto out = io::open_clip_writer(path, spec);
  auto dout = depth_path.empty() ? nullptr : io::open_clip_writer(depth_path, dspec);
  ImageRGBA8 f(w, h), d(depth.width, depth.height);
  for (int k = 0; k < frames; ++k) {
    const int shift = (4 * k) % w;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) std::copy(scene.px((x + shift) % w, y), scene.px((x + shift) % w, y) + 4, f.px(x, y));
    out->write(f, k / fps, k);
    if (!dout) continue;
    const int ds = shift / 4;
    for (int y = 0; y < d.height; ++y)
      for (int x = 0; x < d.width; ++x) {
        const float v = (depth.at((x + ds) % d.width, y) - lo) / std::max(hi - lo, 1e-6f);
        uint8_t* p = d.px(x, y);
        p[0] = p[1] = p[2] = uint8_t(std::lround(std::clamp(v, 0.f, 1.f) * 255.f)), p[3] = 255;
      }
    dout->write(d, k / fps, k);
  }
  out->finish();
  if (dout) dout->finish();
}

// The still pipeline's warm frame at this size: one image, its synthetic radial depth, run 25 times; the
// median of the last 20 runs' stage sums (upload excluded, as the clip's pipeline time is).
double still_frame_ms(const std::string& backend, const Params& p, int w, int h) {
  std::unique_ptr<Pipeline> pipe = make_backend(backend);
  const ImageRGBA8 scene = io::resample_image(io::load_image(io::default_scene_image()), w, h);
  SyntheticDepth sd;
  sd.mode = SyntheticDepth::Mode::Radial;
  pipe->set_image(scene);
  pipe->set_depth(make_synthetic_depth(sd, w, h));
  pipe->set_params(p);
  std::vector<double> ms;
  for (int i = 0; i < 25; ++i) {
    pipe->set_image(scene);  // a new image every run, as a clip's frames are
    pipe->run();
    (void)pipe->result();
    double t = 0;
    for (const StageTiming& s : pipe->timings())
      if (s.parent.empty() && s.name != "upload") t += s.ms;
    if (i >= 5) ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

nlohmann::json stats_json(const ClipStats& c) {
  const double n = double(std::max<long long>(1, c.frames));
  return {{"frames", c.frames},
          {"fps", c.frames / (c.wall_ms / 1000.0)},
          {"wall_s", c.wall_ms / 1000.0},
          {"decode_wait_ms", c.decode_ms / n},
          {"depth_ms", c.depth_ms / n},
          {"filter_ms", c.filter_ms / n},
          {"encode_ms", c.encode_ms / n},
          {"encode_wait_ms", c.encode_wait_ms / n},
          {"pipeline_warm_ms", c.warm ? c.pipeline_ms / double(c.warm) : 0.0},
          {"refiner", c.refiner},
          {"backend", c.backend}};
}

int run_bench_video(const BenchVideoOptions& o) {
  std::string why;
  if (!io::video_available(&why)) throw Error(why);
  const gpu::DeviceInfo& dev = gpu::probe();
  const bool gpu = choose_backend(o.backend).gpu;
  nlohmann::json out = {{"command", "bench video"}, {"git", git_rev()}, {"backend_asked", o.backend},
                        {"device", dev.available ? dev.name : "none (" + dev.reason + ")"}, {"frames", o.frames},
                        {"clip_fps", o.fps}, {"rows", nlohmann::json::array()}};
  if (gpu) out["copy_gbps"] = gpu::measure_bandwidth(size_t(256) << 20).copy_gbps;
  Params p;
  p.filter = FilterKind::Dof;
  if (!o.mode.empty()) p.dof_mode = o.mode;
  validate(p);
  std::printf("satlab bench video: %d frames a clip, %s%s\n", o.frames, gpu ? dev.name.c_str() : "CPU",
              gpu ? "" : " (no GPU backend)");
  std::vector<std::string> decoders = o.decoders;
  if (decoders.empty()) decoders = gpu ? std::vector<std::string>{"cpu", "nvdec"} : std::vector<std::string>{"cpu"};
  for (const std::string& d : decoders) io::check_decoder(d);
  std::printf("%-10s %-5s %-5s %9s %9s %9s %9s | render: decode depth filter encode (ms/frame) | pipeline vs still\n",
              "size", "codec", "dec", "decode/s", "transc/s", "synth/s", "dclip/s");
  std::vector<std::string> made;
  for (const std::string& size : o.sizes) {
    int w = 0, h = 0;
    parse_size(size, &w, &h);
    const double still_ms = still_frame_ms(o.backend, p, w, h);
    for (const std::string& codec : o.codecs) {
      const std::string base = o.dir + "/satlab_bench_video_" + std::to_string(getpid()) + "_" + size + "_" + codec;
      const std::string ext = container_for(codec);
      const std::string src = base + ext, dsrc = base + "_depth" + ext, tout = base + "_transcode" + ext,
                        rout = base + "_render" + ext, dout = base + "_render_dclip" + ext;
      made.insert(made.end(), {src, dsrc, tout, rout, dout});
      make_clips(src, dsrc, w, h, o.frames, o.fps, source_codec(codec));
      io::ClipSpec spec;
      spec.codec = codec;
      // Transcode alone (FFmpeg's libraries, no conversion).
      auto t0 = Clock::now();
      const long long transcoded = io::transcode_clip(src, tout, spec);
      const double transcode_fps = double(transcoded) / s_since(t0);
      for (const std::string& decoder : decoders) {
        // Decode alone (satlab's reader: FFmpeg's decoder and the conversion to RGBA, on the host or, with
        // NVDEC, on the device).
        t0 = Clock::now();
        long long decoded = 0;
        std::string used = "cpu";
        try {
          auto r = io::read_ahead(io::open_clip(src, false, 24.0, clip_decoder(decoder, gpu)));
          used = r->info().decoder;
          for (io::ClipFrame f; r->next(f);) ++decoded;
        } catch (const Error& e) {
          if (decoder == "cpu") throw;
          std::printf("%-10s %-5s %-5s not available: %s\n", size.c_str(), codec.c_str(), decoder.c_str(), e.what());
          out["rows"].push_back({{"size", size}, {"codec", codec}, {"decoder", decoder}, {"not_available", e.what()}});
          continue;
        }
        const double decode_fps = double(decoded) / s_since(t0);
        // The render with synthetic depth, and (CPU decoder) with the depth clip, whose refine reads the
        // frames on the host.
        ClipStats syn, dcl;
        ClipRequest r;
        r.input = src, r.output = rout, r.backend = o.backend, r.codec = codec, r.stats = &syn, r.decoder = decoder;
        r.synthetic.mode = SyntheticDepth::Mode::Radial;
        render_clip(r, p);
        const bool with_dclip = decoder == "cpu";
        if (with_dclip) {
          r.output = dout, r.depth = dsrc, r.stats = &dcl;
          render_clip(r, p);
        }
        const double synth_fps = syn.frames / (syn.wall_ms / 1000.0);
        const double dclip_fps = with_dclip ? dcl.frames / (dcl.wall_ms / 1000.0) : 0.0;
        const double n = double(syn.frames);
        const double pipe_ms = syn.warm ? syn.pipeline_ms / double(syn.warm) : 0;
        char dclip[32] = "-";
        if (with_dclip) std::snprintf(dclip, sizeof(dclip), "%.1f", dclip_fps);
        std::printf("%-10s %-5s %-5s %9.1f %9.1f %9.1f %9s | %.2f %.2f %.2f %.2f | %.3f / %.3f ms = %.2fx; render/transcode %.2f\n",
                    size.c_str(), codec.c_str(), used.c_str(), decode_fps, transcode_fps, synth_fps,
                    dclip, syn.decode_ms / n,
                    syn.depth_ms / n, syn.filter_ms / n, syn.encode_ms / n, pipe_ms, still_ms,
                    still_ms > 0 ? pipe_ms / still_ms : 0.0, synth_fps / transcode_fps);
        std::fflush(stdout);
        nlohmann::json row = {{"size", size},
                              {"codec", codec},
                              {"decoder", used},
                              {"decode_fps", decode_fps},
                              {"transcode_fps", transcode_fps},
                              {"render_synthetic", stats_json(syn)},
                              {"still_pipeline_warm_ms", still_ms},
                              {"pipeline_over_still", still_ms > 0 ? pipe_ms / still_ms : 0.0},
                              {"render_over_transcode", synth_fps / transcode_fps}};
        if (with_dclip) {
          row["render_depth_clip"] = stats_json(dcl);
          row["render_depth_clip_over_transcode"] = dclip_fps / transcode_fps;
        }
        out["rows"].push_back(row);
      }
      if (!o.keep)
        for (const std::string& f : {tout, rout, dout}) std::filesystem::remove(f);
    }
  }
  if (o.memory) {  // flat in the clip's length: N frames against 4N, the first size and codec
    int w = 0, h = 0;
    parse_size(o.sizes[0], &w, &h);
    const std::string codec = o.codecs[0], ext = container_for(codec);
    const std::string src = o.dir + "/satlab_bench_video_" + std::to_string(getpid()) + "_long" + ext;
    const std::string rout = o.dir + "/satlab_bench_video_" + std::to_string(getpid()) + "_long_out" + ext;
    made.insert(made.end(), {src, rout});
    make_clips(src, "", w, h, 4 * o.frames, o.fps, source_codec(codec));
    nlohmann::json mem = nlohmann::json::array();
    for (int frames : {o.frames, 4 * o.frames}) {
      // `satlab render` of the first `frames` frames in a child process, so that its peak RSS is its own.
      const ChildRun c = run_child({self_path(), "render", src, "--synthetic-depth", "radial", "--backend", o.backend,
                                    "--codec", codec, "--frames", "0:" + std::to_string(frames), "--out", rout},
                                   gpu, "", "bench video");
      const double rss_mb = double(c.peak_rss) / 1048576.0, device_mb = double(c.peak_device) / 1048576.0;
      std::printf("memory: %s %s, %d frames: peak RSS %.1f MiB, device %.1f MiB above idle, %.2f s\n",
                  o.sizes[0].c_str(), codec.c_str(), frames, rss_mb, device_mb, c.wall_s);
      mem.push_back({{"size", o.sizes[0]}, {"codec", codec}, {"frames", frames}, {"peak_rss_mib", rss_mb},
                     {"peak_device_mib", device_mb}, {"wall_s", c.wall_s}});
    }
    out["memory"] = mem;
  }
  if (!o.keep)
    for (const std::string& f : made) std::filesystem::remove(f);
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    f << out.dump(2) << "\n";
    if (!f) throw Error(o.json + ": cannot write");
  }
  return 0;
}

}  // namespace

void add_bench_video_command(CLI::App& app, Action& action) {
  CLI::App& bench = command_group(app, "bench", "Benchmarks");
  auto* sub = bench.add_subcommand("video", "Clips end to end (decode, depth, DoF, encode) against FFmpeg's transcode");
  auto o = std::make_shared<BenchVideoOptions>();
  sub->add_option("--sizes", o->sizes, "Frame sizes WxH")->delimiter(',');
  sub->add_option("--codecs", o->codecs, "Encoders: h264, hevc, vp9, ffv1, h264_nvenc, hevc_nvenc")->delimiter(',');
  sub->add_option("--decoders", o->decoders, "Video decoders: cpu, nvdec (default: both on a GPU backend)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu", "nvdec", "auto"}));
  sub->add_option("--frames", o->frames, "Frames a clip")->check(CLI::Range(8, 100000));
  sub->add_option("--fps", o->fps, "The generated clips' frame rate")->check(CLI::Range(1.0, 1000.0));
  sub->add_option("--backend", o->backend, "Pipeline backend")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  std::vector<std::string> modes;
  for (const DofMode& m : dof_modes()) modes.push_back(m.name);
  sub->add_option("--dof-mode", o->mode, "The DoF mode (default: the default mode)")->check(CLI::IsMember(modes));
  sub->add_option("--dir", o->dir, "Where the clips are written (removed after, unless --keep)");
  sub->add_flag("--memory", o->memory, "Also peak memory over N and 4N frames (child processes)");
  sub->add_flag("--keep", o->keep, "Keep the clips");
  sub->add_option("--json", o->json, "Write the results as JSON here");
  sub->callback([o, &action] { action = [o] { return run_bench_video(*o); }; });
}

}  // namespace satlab::cli
