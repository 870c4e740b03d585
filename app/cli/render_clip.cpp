#include "app/cli/render_clip.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include <thread>
#include <mutex>
#include <exception>
#include <deque>
#include <condition_variable>

#include "app/cli/progress.hpp"
#include "app/io/clip.hpp"
#include "app/io/depth_track.hpp"
#include "app/ops/clip_decoder.hpp"
#include "app/io/exr.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/depth_refine.hpp"
#include "app/ops/stereo_matching.hpp"
#include "core/error.hpp"
#include "core/refine.hpp"
#include "core/temporal.hpp"
#include "gpu/convert/yuv_gpu.hpp"
#include "gpu/temporal/temporal_gpu.hpp"

namespace satlab::cli {
namespace {

using Clock = std::chrono::steady_clock;
std::string fmt2(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.2f", v);
  return b;
}
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Per-frame wall times of the stages, summed over the frames.
struct Stages {
  double decode = 0, depth = 0, filter = 0, encode = 0;
  double encode_wait = 0;  // the loop waiting for the writer (encode: the writer's own time, on its thread)
  double pipeline = 0;  // the pipeline's own stage times (GPU: CUDA events), upload excluded, warm frames
  int warm = 0;         // frames whose stages were all warm
};

// The writer on a thread of its own, a few frames behind, so that encoding overlaps the next frames'
// filtering: each result is read from the pipeline (Pipeline::read_result) into one of kBuffers frames,
// page-locked for a GPU backend's copies where it can, and handed to the thread. An encoder failure is
// rethrown by the next put() or by finish().
class WriteBehind {
 public:
  static constexpr int kBuffers = 3;
  WriteBehind(io::ClipWriter& out, Pipeline& pipe, int w, int h) : out_(out), pipe_(pipe), w_(w), h_(h) {
    for (int i = 0; i < kBuffers; ++i) free_.push_back(i);
    thread_ = std::thread([this] { run(); });
  }
  ~WriteBehind() {
    stop();
    for (void* p : pinned_) pipe_.unpin_host(p);
  }
  // The pipeline's last result, to be written with this time and number; returns the ms waited for a
  // free buffer (the writer behind). A GPU result for a writer that takes 4:2:0 is converted on the
  // device (gpu/convert) and only its planes come back.
  double put(double time, long long number) {
    if (buffers_.empty()) allocate();
    const auto t0 = Clock::now();
    int b = -1;
    {
      std::unique_lock<std::mutex> l(m_);
      cv_.wait(l, [&] { return !free_.empty() || error_; });
      if (error_) std::rethrow_exception(error_);
      b = free_.front();
      free_.pop_front();
    }
    const double waited = ms_since(t0);
    Frame& f = buffers_[size_t(b)];
    if (yuv_) {
      void* stream = nullptr;
      const void* d = pipe_.device_result(&stream);
      if (!d) throw Error("the GPU result went missing between frames");
      gpu_yuv_.read(d, stream, w_, h_, f.yuv);
    } else {
      pipe_.read_result(PixelRect{0, 0, w_, h_}, f.rgba.data.data(), size_t(w_) * 4);
    }
    {
      std::lock_guard<std::mutex> l(m_);
      queue_.push_back({b, time, number});
    }
    cv_.notify_all();
    return waited;
  }
  // Waits for every frame to be written, then finishes the file; throws the writer's error.
  void finish() {
    stop();
    if (error_) std::rethrow_exception(error_);
    const auto t0 = Clock::now();
    out_.finish();
    busy_ms_ += ms_since(t0);
  }
  double busy_ms() const { return busy_ms_; }  // the thread's time in the writer (after finish)
  bool yuv() const { return yuv_; }

 private:
  struct Frame {
    ImageRGBA8 rgba;
    Yuv420 yuv;
  };
  struct Job {
    int buffer;
    double time;
    long long number;
  };
  // At the first frame, when the backend's result is there: 4:2:0 planes from the device, else RGBA.
  void allocate() {
    void* stream = nullptr;
    yuv_ = out_.takes_yuv420() && pipe_.device_result(&stream) != nullptr;
    for (int i = 0; i < kBuffers; ++i) {
      Frame f;
      if (yuv_) f.yuv = Yuv420(w_, h_);
      else f.rgba = ImageRGBA8(w_, h_);
      buffers_.push_back(std::move(f));
    }
    auto pin = [&](void* p, size_t n) {  // for the device's copies into them by DMA, where it can
      if (pipe_.pin_host(p, n)) pinned_.push_back(p);
    };
    for (Frame& f : buffers_) {
      if (yuv_) pin(f.yuv.y.data(), f.yuv.y.size()), pin(f.yuv.u.data(), f.yuv.u.size()), pin(f.yuv.v.data(), f.yuv.v.size());
      else pin(f.rgba.data.data(), f.rgba.data.size());
    }
  }
  void run() {
    for (;;) {
      Job j{};
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return !queue_.empty() || stop_; });
        if (queue_.empty()) return;
        j = queue_.front();
        queue_.pop_front();
      }
      try {
        const auto t0 = Clock::now();
        const Frame& f = buffers_[size_t(j.buffer)];
        if (yuv_) out_.write_yuv420(f.yuv, j.time, j.number);
        else out_.write(f.rgba, j.time, j.number);
        busy_ms_ += ms_since(t0);
      } catch (...) {
        std::lock_guard<std::mutex> l(m_);
        error_ = std::current_exception();
        queue_.clear();
        cv_.notify_all();
        return;
      }
      std::lock_guard<std::mutex> l(m_);
      free_.push_back(j.buffer);
      cv_.notify_all();
    }
  }
  void stop() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  io::ClipWriter& out_;
  Pipeline& pipe_;
  int w_, h_;
  bool yuv_ = false;
  gpu::GpuYuv gpu_yuv_;
  std::vector<Frame> buffers_;
  std::vector<void*> pinned_;
  std::deque<int> free_;
  std::deque<Job> queue_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::exception_ptr error_;
  double busy_ms_ = 0;
  std::thread thread_;
};

}  // namespace

void parse_frame_range(const std::string& spec, long long* first, long long* last) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) throw Error("--frames: expected A:B (0-based, B exclusive; either may be empty)");
  auto num = [&](const std::string& s, long long dflt) {
    if (s.empty()) return dflt;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (*end || v < 0) throw Error("--frames: '" + s + "' is not a frame number >= 0");
    return v;
  };
  *first = num(spec.substr(0, colon), 0);
  *last = num(spec.substr(colon + 1), -1);
  if (*last >= 0 && *last <= *first) throw Error("--frames: the range " + spec + " holds no frame");
}

std::string render_clip(const ClipRequest& r, const Params& base) {
  if (!r.stereo.empty() && r.stereo != "sbs" && r.stereo != "tb")
    throw Error("--stereo: '" + r.stereo + "' is not a layout (sbs: side by side, tb: top and bottom)");
  if (int(!r.stereo.empty()) + int(!r.right.empty()) + int(!r.depth.empty()) > 1)
    throw Error("--depth, --right and --stereo each give the depth: name one");
  std::string backend_note;
  std::unique_ptr<Pipeline> pipe = make_backend(r.backend, &backend_note);
  if (!backend_note.empty()) std::fprintf(stderr, "satlab: note: %s\n", backend_note.c_str());
  const bool gpu_pipe = pipe->backend_name().rfind("cpu", 0) != 0;
  // Frames the host reads (a stereo pair's views, a depth clip's refine, the frame kept for a bad one).
  // A video's own depth track (Android's MP4-AT) is its depth where no other is named.
  bool own_depth = false;
  if (base.filter == FilterKind::Dof && r.depth.empty() && r.stereo.empty() && r.right.empty() && io::is_video_path(r.input)) {
    try {
      own_depth = io::find_mp4at(r.input).depth_track >= 0;
    } catch (const Error&) {  // damaged: opening it as the depth clip below says so
      own_depth = true;
    }
  }
  const bool host_frames = !r.stereo.empty() || !r.right.empty() || r.skip_bad_frames || own_depth ||
                           (base.filter == FilterKind::Dof && !r.depth.empty() && io::is_clip_path(r.depth));
  std::unique_ptr<io::ClipReader> in =
      io::read_ahead(io::open_clip(r.input, false, r.fps, clip_decoder(r.decoder, gpu_pipe, host_frames)));
  const io::ClipInfo info = in->info();
  if (!info.decoder_note.empty()) std::fprintf(stderr, "satlab: note: %s: %s\n", r.input.c_str(), info.decoder_note.c_str());
  const Timeline timeline(r.keys);
  const bool dof = base.filter == FilterKind::Dof;
  const bool stereo = dof && (!r.stereo.empty() || !r.right.empty());
  // The frame rendered: the left view of a packed stereo frame, else the frame.
  const int width = r.stereo == "sbs" ? info.width / 2 : info.width, height = r.stereo == "tb" ? info.height / 2 : info.height;
  if (width < 1 || height < 1) throw Error(r.input + ": frames of " + std::to_string(info.width) + "x" + std::to_string(info.height) + " hold no two views");
  // Depth: a clip matched by time, a stereo pair, one map for all frames, or the synthetic depth.
  std::unique_ptr<io::ClipReader> depth_clip, right_clip;
  bool inverse_track = false;  // a depth track of inverse depth (MP4-AT)
  ImageF still_depth;
  DepthOrigin origin = DepthOrigin::Synthetic;
  std::string depth_from;
  // An OpenEXR sequence with a Z pass gives its own depth, exact (no temporal filter under auto).
  std::string depth_source = r.depth;
  if (dof && depth_source.empty() && !stereo && !info.first_file.empty() && io::exr_has_depth(info.first_file))
    depth_source = r.input;
  if (own_depth) depth_source = r.input;
  const bool moving_synthetic = dof && depth_source.empty() && !stereo && timeline.moves_synthetic();
  if (dof && !r.right.empty()) {
    right_clip = io::read_ahead(io::open_clip(r.right, false, r.fps));
    const io::ClipInfo& ri = right_clip->info();
    if (ri.width != info.width || ri.height != info.height)
      throw Error(r.right + ": its frames are " + std::to_string(ri.width) + "x" + std::to_string(ri.height) + ", the left clip's " +
                  std::to_string(info.width) + "x" + std::to_string(info.height));
    origin = DepthOrigin::Stereo;
    depth_from = "stereo with " + io::file_stem(r.right);
  } else if (stereo) {
    origin = DepthOrigin::Stereo;
    depth_from = std::string("stereo, views ") + (r.stereo == "sbs" ? "side by side" : "top and bottom");
  } else if (dof && !depth_source.empty()) {
    if (io::is_clip_path(depth_source)) {
      depth_clip = io::read_ahead(io::open_clip(depth_source, true, r.fps));
      origin = DepthOrigin::File;
      const io::ClipInfo& d = depth_clip->info();
      depth_from = (d.depth_track.empty() ? "depth clip " + io::file_stem(depth_source) : "its " + d.depth_track) + " (" +
                   std::to_string(d.width) + "x" + std::to_string(d.height) + ")";
      inverse_track = d.inverse_depth;
      if (d.frames >= 0 && info.frames >= 0 && d.frames != info.frames)
        std::fprintf(stderr, "satlab: note: %s has %lld frames, %s %lld: depth frames are matched by time\n",
                     depth_source.c_str(), d.frames, r.input.c_str(), info.frames);
    } else {
      still_depth = io::load_depth(depth_source);
      origin = DepthOrigin::File;
      depth_from = "depth " + io::file_stem(depth_source) + " on every frame";
    }
  } else if (dof) {
    if (!moving_synthetic) still_depth = make_synthetic_depth(r.synthetic, width, height);
    depth_from = "synthetic depth " + to_spec(r.synthetic) + (moving_synthetic ? " moved by the keys" : "");
  }
  pipe->set_algorithms(r.algorithms);
  io::ClipSpec spec;
  spec.width = width, spec.height = height;
  spec.fps = info.fps > 0 ? info.fps : r.fps;
  spec.codec = r.codec, spec.quality = r.quality;
  // A video's orientation and colour tags go into a video out as they came (a packed stereo frame's view is
  // written upright: its layout is not the input's).
  if (io::is_video_path(r.input) && io::is_video_path(r.output)) {
    if (r.stereo.empty()) spec.rotation = info.rotation;
    if (info.color_primaries != 2) spec.color_primaries = info.color_primaries;
    if (info.color_trc != 2) spec.color_trc = info.color_trc;
  }
  // A video's audio goes into a video out as it is, over the frames rendered (--frames: their times).
  if (!info.audio.empty() && io::is_video_path(r.input) && io::is_video_path(r.output)) {
    spec.audio_from = r.input;
    spec.audio_start = r.first > 0 ? (double(r.first) - 0.5) / std::max(1.0, spec.fps) : 0.0;
    spec.audio_end = r.last >= 0 ? (double(r.last) - 0.5) / std::max(1.0, spec.fps) : -1.0;
  } else if (!info.audio.empty()) {
    std::fprintf(stderr, "satlab: note: %s has %s audio: a sequence holds none, it is not written\n", r.input.c_str(),
                 info.audio.c_str());
  }
  std::unique_ptr<io::ClipWriter> out = io::open_clip_writer(r.output, spec);
  WriteBehind writer(*out, *pipe, width, height);

  TemporalParams tp;
  // auto: at the first depth frame (a refined depth clip, stereo); off for exact and still depth.
  bool filtering = r.temporal != "auto" && parse_temporal(r.temporal, &tp);
  TemporalFilter temporal(tp);
  // On the GPU backend the filter runs there too (bit for bit the CPU's: gpu/temporal).
  const bool gpu_temporal = gpu_pipe;
  gpu::GpuTemporalFilter temporal_gpu(tp);
  StereoParams sp;
  sp.disparities = default_disparities(width);
  Stages st;
  io::ClipFrame frame, dframe, dnext, rframe;
  bool have_dnext = false, depth_done = false;
  ImageF refined_still;  // a still depth, refined once (every frame has one size)
  bool still_given = false;  // the pipeline has it
  std::string refiner;
  long long written = 0, replaced = 0;
  ImageRGBA8 last_good;  // the last frame that decoded (--skip-bad-frames)
  double last_time = -1;
  const long long total = (r.last >= 0 ? r.last : info.frames) >= 0 ? (r.last >= 0 ? r.last : info.frames) - r.first : -1;
  const Progress progress(total > 0 ? size_t(total) : 0);
  auto t_all = Clock::now();
  for (long long index = 0;; ++index) {
    if (r.cancel && r.cancel->load()) throw Error(r.output + ": cancelled; nothing was written");
    auto t0 = Clock::now();
    bool bad = false, left_read = false;
    try {
      if (!in->next(frame)) break;
      left_read = true;
      if (right_clip) {
        if (!right_clip->next(rframe))
          throw Error(r.right + ": ends at frame " + std::to_string(frame.index) + ", before the left clip");
      }
    } catch (const Error& e) {
      if (index < r.first) continue;  // before the range: never rendered
      if (!r.skip_bad_frames || last_good.empty()) throw;  // before any good frame there is nothing to repeat
      std::fprintf(stderr, "satlab: note: %s; the frame before repeats (--skip-bad-frames)\n", e.what());
      bad = true;
    }
    st.decode += ms_since(t0);
    if (bad && !left_read) {  // the last good frame's result again, a frame later
      frame.index = index, frame.number = frame.number + 1;
      frame.time = last_time + 1.0 / spec.fps;
    } else {
      index = frame.index;  // (a right view that failed: the left frame's own number and time)
    }
    if (index < r.first) continue;
    if (r.last >= 0 && index >= r.last) break;
    last_time = frame.time;
    if (bad) {  // the pipeline still holds the last good frame's result
      st.encode_wait += writer.put(frame.time, frame.number);
      ++written, ++replaced;
      continue;
    }
    if (r.skip_bad_frames) last_good = host_image(frame);
    t0 = Clock::now();
    ImageRGBA8 view;  // the left view of a packed stereo frame
    if (!r.stereo.empty()) {
      host_image(frame);
      frame.device = DeviceRGBA();  // the frame becomes its left view
      ImageRGBA8 second(width, height);
      view = ImageRGBA8(width, height);
      for (int y = 0; y < height; ++y) {
        const bool sbs = r.stereo == "sbs";
        const uint8_t* a = frame.image.px(0, y);
        const uint8_t* b = sbs ? frame.image.px(width, y) : frame.image.px(0, y + height);
        std::copy(a, a + size_t(width) * 4, view.px(0, y));
        std::copy(b, b + size_t(width) * 4, second.px(0, y));
      }
      frame.image = std::move(view);
      rframe.image = std::move(second);
    }
    ImageF depth;                  // a depth clip's or the stereo pair's frame, refined
    const ImageF* used = &depth;   // the depth this frame takes
    if (stereo) {
      const StereoResult m = match_stereo(host_image(frame), host_image(rframe), sp, r.backend);
      RefinedDepth rd = refine_disparity(frame.image, m, r.refine, r.backend);
      refiner = rd.refiner;
      depth = disparity_depth(rd.depth);
      if (r.temporal == "auto" && written == 0) filtering = true;  // stereo is noisy frame to frame
    } else if (depth_clip) {  // the latest depth frame at or before this frame's time (half a frame's slack)
      const double slack = 0.5 / std::max(1.0, spec.fps);
      for (;;) {
        if (!have_dnext && !depth_done) have_dnext = depth_clip->next(dnext), depth_done = !have_dnext;
        if (!have_dnext || (dframe.depth.empty() ? false : dnext.time > frame.time + slack)) break;
        dframe = std::move(dnext);
        have_dnext = false;
      }
      if (dframe.depth.empty()) throw Error(depth_source + ": no depth frame for frame " + std::to_string(frame.index));
      RefinedDepth rd = refine_for_image(host_image(frame), dframe.depth, nullptr, r.refine, origin, r.backend);
      refiner = rd.refiner;
      depth = std::move(rd.depth);
      if (r.temporal == "auto" && written == 0) filtering = refiner != "none";
    } else if (moving_synthetic) {  // made again at this frame's time: exact, no refinement
      depth = make_synthetic_depth(timeline.synthetic_at(r.synthetic, frame.time), width, height);
    } else if (!still_depth.empty()) {
      if (refined_still.empty()) {
        RefinedDepth rd = refine_for_image(host_image(frame), still_depth, nullptr, r.refine, origin, r.backend);
        refiner = rd.refiner;
        refined_still = std::move(rd.depth);
      }
      used = &refined_still;  // no copy a frame
    }
    if (filtering && (stereo || depth_clip)) {
      if (gpu_temporal) temporal_gpu.apply(depth, host_image(frame));
      else temporal.apply(depth, host_image(frame));
    }
    st.depth += ms_since(t0);
    t0 = Clock::now();
    // Focus points read this frame's depth.
    Params p = timeline.empty() ? base : timeline.at(base, frame.time, used->empty() ? nullptr : used);
    if (stereo || inverse_track) p.disparity = true;  // larger is nearer
    if (frame.device.empty() || !pipe->set_image_device(frame.device)) pipe->set_image(host_image(frame));
    // A depth that is the same every frame is given once: the backend keeps it (and, on the GPU, its
    // normalisation) across images.
    if (!used->empty() && (used != &refined_still || !still_given)) pipe->set_depth(*used), still_given = used == &refined_still;
    pipe->set_params(p);
    pipe->run();
    st.filter += ms_since(t0);
    {
      double t = 0;
      bool cold = false;
      for (const StageTiming& s : pipe->timings())
        if (s.parent.empty() && s.name != "upload") t += s.ms, cold = cold || s.cold;
      if (!cold) st.pipeline += t, ++st.warm;
    }
    t0 = Clock::now();
    const double waited = writer.put(frame.time, frame.number);  // the wait for the writer, then the read-back
    st.encode_wait += waited;
    st.filter += ms_since(t0) - waited;
    ++written;
    if (r.on_frame) r.on_frame(written, total);
    const double left_s = total > 0 ? ms_since(t_all) / 1000.0 * double(total - written) / double(written) : 0;
    char eta[64];
    std::snprintf(eta, sizeof(eta), total > 0 ? "frame %lld, %.0f s left" : "frame %lld", frame.index, left_s);
    progress.show(size_t(written), eta);
  }
  progress.clear();
  if (written == 0) throw Error(r.input + ": no frame in the range asked for (--frames)");
  writer.finish();
  st.encode = writer.busy_ms();
  const double wall = ms_since(t_all);
  if (r.stats) {
    ClipStats& c = *r.stats;
    c.frames = written, c.replaced = replaced, c.wall_ms = wall;
    c.decode_ms = st.decode, c.depth_ms = st.depth, c.filter_ms = st.filter, c.encode_ms = st.encode;
    c.encode_wait_ms = st.encode_wait;
    c.pipeline_ms = st.pipeline, c.warm = st.warm;
    c.refiner = refiner, c.backend = pipe->backend_name();
  }
  char line[640];
  const double n = double(written);
  const double rendered = std::max(1.0, n - double(replaced));
  std::snprintf(line, sizeof(line),
                "(%lld frames %dx%d at %.3g fps, %s filter%s%s%s, %s; %s%s; per frame: decode wait %.2f, depth %.2f, "
                "filter %.2f (the pipeline's stages %s), encode %.2f on its own thread (waited for %.2f) ms; %.2f frames/s)",
                written, width, height, spec.fps, to_string(base.filter),
                dof ? (", " + depth_from).c_str() : "", dof && !refiner.empty() ? (", refine " + refiner).c_str() : "",
                dof && (depth_clip || stereo) ? (filtering ? (gpu_temporal ? ", temporal filter gated (gpu)" : ", temporal filter gated (cpu)")
                                                          : ", no temporal filter")
                                             : "",
                (pipe->backend_name() + (info.decoder == "nvdec" ? ", decoded by NVDEC" : "")).c_str(),
                (out->summary() + (writer.yuv() ? ", 4:2:0 made on the GPU" : "")).c_str(),
                replaced ? (", " + std::to_string(replaced) + " bad frame(s) replaced by the one before").c_str() : "",
                st.decode / n, st.depth / rendered, st.filter / rendered,
                st.warm ? (fmt2(st.pipeline / st.warm) + " warm").c_str() : "all cold", st.encode / n, st.encode_wait / n,
                n / (wall / 1000.0));
  return line;
}

}  // namespace satlab::cli
