// The GPU backend of the Pipeline interface: upload -> reduce (depth min/max + normalise) -> coc -> sat
// (tiled 2D builder from the registry) -> blur, all on one stream. Each stage is bracketed by CUDA events;
// a frame's events are read at the next run() (one frame late, so timing never stalls the pipeline), or
// when timings() finds them complete. CUDA errors become satlab::Error.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "gpu/device.hpp"
#include "gpu/filter/filter.hpp"
#include "gpu/sat/sat.hpp"

namespace satlab::gpu {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("GPU " + what + ": " + cudaGetErrorString(e));
  }
}

struct DeviceMemory {
  void* p = nullptr;
  size_t bytes = 0;
  void reset(size_t n, const char* what) {
    if (n == bytes) return;
    cudaFree(p);
    p = nullptr, bytes = 0;
    check(cudaMalloc(&p, n), std::string("allocation of ") + std::to_string(n >> 20) + " MiB for the " + what);
    bytes = n;
  }
  ~DeviceMemory() { cudaFree(p); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

// One frame's stage events: begin/end pair per stage.
struct FrameEvents {
  struct Stage {
    std::string name;
    double bytes;
    cudaEvent_t begin, end;
  };
  std::vector<Stage> stages;
  std::vector<cudaEvent_t> pool;
  size_t used = 0;
  bool pending = false;
  cudaEvent_t next() {
    if (used == pool.size()) {
      cudaEvent_t e;
      check(cudaEventCreate(&e), "cudaEventCreate");
      pool.push_back(e);
    }
    return pool[used++];
  }
  ~FrameEvents() {
    for (auto e : pool) cudaEventDestroy(e);
  }
};

class GpuPipeline final : public Pipeline {
 public:
  GpuPipeline() {
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream creation");
  }
  ~GpuPipeline() override { cudaStreamDestroy(stream_); }

  std::string backend_name() const override { return "gpu (" + probe().name + ")"; }

  void set_image(const ImageRGBA8& image) override {
    if (image.empty()) throw Error("empty image");
    const size_t n = image.pixels();
    const size_t need = n * (4 + 16 + 4 + 4 + 4 + 4) + (64 << 20);
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const size_t have = free_b + img_.bytes + sat_.bytes + out_.bytes + raw_.bytes + dnorm_.bytes + coc_.bytes;
    if (need > have)
      throw Error("image of " + std::to_string(image.width) + "x" + std::to_string(image.height) + " needs " +
                  std::to_string(need >> 20) + " MiB of GPU memory, " + std::to_string(have >> 20) +
                  " MiB available (the CPU backend can still filter it)");
    if (image.width != width_ || image.height != height_) {
      img_.reset(n * 4, "image");
      sat_.reset(n * 16, "SAT");
      out_.reset(n * 4, "result");
      dnorm_.reset(n * 4, "normalised depth");
      coc_.reset(n * 4, "CoC map");
      raw_.reset(n * 4, "depth map");
      mm_.reset(minmax_scratch_bytes(n) + 2 * sizeof(float), "min/max scratch");
      has_depth_ = false;
    }
    width_ = image.width, height_ = image.height;
    pending_upload_ = image;  // uploaded (and timed) in the next run()
    sat_valid_ = false;
    dirty_ = true;
  }

  void set_depth(const ImageF& depth) override {
    if (depth.channels != 1) throw Error("depth map must have one channel");
    if (depth.width != width_ || depth.height != height_)
      throw Error("depth map is " + std::to_string(depth.width) + "x" + std::to_string(depth.height) +
                  " but the image is " + std::to_string(width_) + "x" + std::to_string(height_));
    check(cudaMemcpyAsync(raw_.p, depth.data.data(), depth.data.size() * 4, cudaMemcpyHostToDevice, stream_),
          "depth upload");
    check(cudaStreamSynchronize(stream_), "depth upload");
    has_depth_ = true;
    depth_valid_ = false;
    dirty_ = true;
  }

  void set_params(const Params& params) override {
    validate(params);
    params_ = params;
    dirty_ = true;
  }

  void run() override {
    if (width_ == 0) throw Error("no image set");
    collect(frames_[cur_ ^ 1]);  // last frame's timings, one frame late
    FrameEvents& f = frames_[cur_];
    f.stages.clear();
    f.used = 0;
    const size_t n = size_t(width_) * size_t(height_);
    const double dn = double(n);
    if (!pending_upload_.empty()) {
      stage(f, "upload", 4 * dn, [&] {
        check(cudaMemcpyAsync(img_.p, pending_upload_.data.data(), n * 4, cudaMemcpyHostToDevice, stream_),
              "image upload");
      });
    }
    if (params_.filter == FilterKind::Dof) {
      if (!has_depth_) {
        stage(f, "coc", 4 * dn, [&] {
          fill(dnorm_.as<float>(), n, params_.focus, stream_);
          coc_map(dnorm_.as<float>(), coc_.as<float>(), n, params_, stream_);
        });
      } else {
        if (!depth_valid_) {
          stage(f, "reduce", 4 * dn, [&] {
            float* mm = mm_.as<float>();
            depth_minmax(raw_.as<float>(), n, mm, mm + 2, mm_.bytes - 2 * sizeof(float), stream_);
          });
          stage(f, "normalise", 8 * dn,
                [&] { depth_normalise(raw_.as<float>(), mm_.as<float>(), dnorm_.as<float>(), n, stream_); });
          depth_valid_ = true;
        }
        stage(f, "coc", 8 * dn, [&] { coc_map(dnorm_.as<float>(), coc_.as<float>(), n, params_, stream_); });
      }
    }
    if (!sat_valid_) {
      stage(f, "sat", 20 * dn, [&] {
        SatArgs a;
        a.in = img_.p, a.out = sat_.p, a.width = width_, a.height = height_, a.channels = 4;
        a.dtype = DType::RGBA8, a.stream = stream_;
        sat_tiled(a);
      });
      sat_valid_ = true;
    }
    stage(f, "blur", (params_.filter == FilterKind::Dof ? 24 : 20) * dn, [&] {
      blur_rgba8(sat_.as<uint32_t>(), params_.filter == FilterKind::Dof ? coc_.as<float>() : nullptr,
                 params_.box_radius, width_, height_, out_.as<uint8_t>(), stream_);
    });
    f.pending = true;
    const cudaError_t e = cudaPeekAtLastError();
    check(e, "frame");
    if (!pending_upload_.empty()) {  // the host copy must outlive its asynchronous upload
      check(cudaStreamSynchronize(stream_), "image upload");
      pending_upload_ = ImageRGBA8();
    }
    cur_ ^= 1;
    result_ready_ = depth_ready_ = coc_ready_ = false;
  }

  const void* device_result(void** stream) override {
    if (stream) *stream = stream_;
    return out_.p;
  }

  const ImageRGBA8& result() override {
    if (!result_ready_) {
      result_ = ImageRGBA8(width_, height_);
      download(result_.data.data(), out_.p, result_.data.size(), "result download");
      result_ready_ = true;
    }
    return result_;
  }
  const ImageF& depth_normalised() override {
    if (!depth_ready_) {
      depth_host_ = ImageF(width_, height_, 1);
      download(depth_host_.data.data(), dnorm_.p, depth_host_.data.size() * 4, "depth download");
      depth_ready_ = true;
    }
    return depth_host_;
  }
  const ImageF& coc() override {
    if (!coc_ready_) {
      coc_host_ = ImageF(width_, height_, 1);
      download(coc_host_.data.data(), coc_.p, coc_host_.data.size() * 4, "CoC download");
      coc_ready_ = true;
    }
    return coc_host_;
  }

  const std::vector<StageTiming>& timings() const override {
    // The frame just run, once its last event has completed (never waits); else the one before.
    const FrameEvents& f = frames_[cur_ ^ 1];
    if (f.pending && !f.stages.empty() && cudaEventQuery(f.stages.back().end) == cudaSuccess)
      const_cast<GpuPipeline*>(this)->collect(const_cast<FrameEvents&>(f));
    return timings_;
  }

 private:
  template <typename F>
  void stage(FrameEvents& f, const char* name, double bytes, F&& body) {
    FrameEvents::Stage s{name, bytes, f.next(), f.next()};
    check(cudaEventRecord(s.begin, stream_), "event record");
    body();
    check(cudaEventRecord(s.end, stream_), "event record");
    f.stages.push_back(s);
  }

  void collect(FrameEvents& f) {
    if (!f.pending) return;
    f.pending = false;
    timings_.clear();
    for (const auto& s : f.stages) {
      check(cudaEventSynchronize(s.end), "stage '" + s.name + "'");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, s.begin, s.end), "event timing");
      timings_.push_back({s.name, double(ms), s.bytes});
    }
  }

  void download(void* dst, const void* src, size_t bytes, const char* what) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), what);
    check(cudaStreamSynchronize(stream_), what);
  }

  cudaStream_t stream_ = nullptr;
  int width_ = 0, height_ = 0;
  DeviceMemory img_, sat_, out_, raw_, dnorm_, coc_, mm_;
  ImageRGBA8 pending_upload_, result_;
  ImageF depth_host_, coc_host_;
  bool has_depth_ = false, depth_valid_ = false, sat_valid_ = false, dirty_ = true;
  bool result_ready_ = false, depth_ready_ = false, coc_ready_ = false;
  Params params_;
  FrameEvents frames_[2];
  int cur_ = 0;
  std::vector<StageTiming> timings_;
};

}  // namespace

std::unique_ptr<Pipeline> make_pipeline() {
  if (!probe().available) throw Error(probe().reason);
  return std::make_unique<GpuPipeline>();
}

}  // namespace satlab::gpu
