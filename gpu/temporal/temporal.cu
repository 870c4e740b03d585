// The temporal filter's step on the device: one thread a pixel, core/temporal.hpp's arithmetic
// (compiled with -fmad=false, gpu/CMakeLists.txt).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/device.hpp"
#include "gpu/host_timing.hpp"
#include "gpu/temporal/temporal_gpu.hpp"

namespace satlab::gpu {
namespace {

__global__ void temporal_kernel(const float* __restrict__ depth, const uchar4* __restrict__ image,
                                float* __restrict__ running, uint8_t* __restrict__ prev, size_t n, bool first,
                                float depth_s2, float colour_s2, float history) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uchar4 c = image[i];
  const uint8_t rgb[3] = {c.x, c.y, c.z};
  float* r = running + i;
  uint8_t* p = prev + i * 3;
  if (first) {
    *r = depth[i];
  } else {
    *r = temporal::step(*r, depth[i], rgb, p, depth_s2, colour_s2, history);
  }
  p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2];
}

void run_gated(const TemporalArgs& a) {
  if (a.width < 0 || a.height < 0) throw Error("temporal: negative size");
  const size_t n = size_t(a.width) * size_t(a.height);
  if (n == 0) return;
  const unsigned blocks = unsigned((n + 255) / 256);
  temporal_kernel<<<blocks, 256, 0, static_cast<cudaStream_t>(a.stream)>>>(
      a.depth, static_cast<const uchar4*>(a.image), a.running, a.prev_rgb, n, a.first, a.depth_s2, a.colour_s2,
      a.history);
  SATLAB_CUDA(cudaGetLastError(), "temporal " + std::to_string(a.width) + "x" + std::to_string(a.height));
}

const Variant& temporal_variant(const std::string& name) {
  for (const Variant& v : variants())
    if (v.family == Family::Temporal && v.name == name) return v;
  throw Error("unknown temporal filter '" + name + "'");
}

}  // namespace

std::vector<Variant> temporal_variants() {
  std::vector<Variant> out;
  for (const TemporalRow& r : temporal_rows()) {
    Variant v;
    v.name = r.name;
    v.family = Family::Temporal;
    v.label = r.label;
    v.source = r.source;
    v.dtypes = {DType::F32};
    // Depth and image read, the running depth read and written, the last RGB read and written.
    v.bytes = [](size_t n, DType) { return double(n) * (4 + 4 + 8 + 6); };
    v.refuses = [](size_t, DType t) -> std::string { return t == DType::F32 ? "" : "f32 depth only"; };
    v.temporal = run_gated;
    out.push_back(std::move(v));
  }
  return out;
}

struct GpuTemporalFilter::State {
  int w = 0, h = 0;
  float span = 1.f;
  std::unique_ptr<DeviceBuffer> depth, image, running, prev;
};

GpuTemporalFilter::GpuTemporalFilter(TemporalParams p) : p_(p), s_(std::make_unique<State>()) {}
GpuTemporalFilter::~GpuTemporalFilter() = default;
void GpuTemporalFilter::reset() { s_ = std::make_unique<State>(); }

void GpuTemporalFilter::apply(ImageF& depth, const ImageRGBA8& image) {
  if (!probe().available) throw Error(probe().reason);
  if (depth.empty() || depth.channels != 1) throw Error("temporal filter: need a 1-channel depth map");
  if (image.width != depth.width || image.height != depth.height)
    throw Error("temporal filter: the depth and the frame differ in size");
  const size_t n = depth.pixels();
  const std::string ctx = "temporal " + std::to_string(depth.width) + "x" + std::to_string(depth.height);
  const bool first = s_->w != depth.width || s_->h != depth.height;
  if (first) {
    s_ = std::make_unique<State>();
    s_->w = depth.width, s_->h = depth.height;
    s_->depth = std::make_unique<DeviceBuffer>(n * 4, ctx);
    s_->image = std::make_unique<DeviceBuffer>(n * 4, ctx);
    s_->running = std::make_unique<DeviceBuffer>(n * 4, ctx);
    s_->prev = std::make_unique<DeviceBuffer>(n * 3, ctx);
    s_->span = depth_span(depth);
  }
  SATLAB_CUDA(cudaMemcpy(s_->depth->p, depth.data.data(), n * 4, cudaMemcpyHostToDevice), ctx);
  SATLAB_CUDA(cudaMemcpy(s_->image->p, image.data.data(), n * 4, cudaMemcpyHostToDevice), ctx);
  TemporalArgs a;
  a.depth = s_->depth->f(), a.image = s_->image->p, a.running = s_->running->f();
  a.prev_rgb = static_cast<uint8_t*>(s_->prev->p);
  a.width = depth.width, a.height = depth.height, a.first = first;
  a.depth_s2 = temporal_depth_s2(p_, s_->span), a.colour_s2 = temporal_colour_s2(p_), a.history = p_.history;
  temporal_variant("gated").temporal(a);
  SATLAB_CUDA(cudaMemcpy(depth.data.data(), s_->running->p, n * 4, cudaMemcpyDeviceToHost), ctx);
}

std::string check_temporal(int width, int height, int frames, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.f, 0.02f);
  TemporalFilter cpu;
  GpuTemporalFilter gpu;
  for (int t = 0; t < frames; ++t) {
    ImageRGBA8 img(width, height);
    ImageF d(width, height, 1);
    const int x0 = (t * 3) % std::max(1, width);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const bool in = x >= x0 && x < x0 + width / 3 + 1 && y < height / 2 + 1;
        uint8_t* p = img.px(x, y);
        for (int c = 0; c < 3; ++c) p[c] = uint8_t(in ? 200 + int(rng() % 30) : 40 + int(rng() % 30) + 20 * c);
        p[3] = 255;
        d.at(x, y) = (in ? 0.2f : 0.8f) + noise(rng);
        if (rng() % 97 == 0) d.at(x, y) = std::nanf("");  // holes
      }
    if (t == frames - 1)  // adversarial: all 255 colour, depth far outside [0,1]
      for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = 255, d.data[i / 4] = 1e6f;
    ImageF c = d, g = d;
    cpu.apply(c, img, 1);
    gpu.apply(g, img);
    for (size_t i = 0; i < c.data.size(); ++i) {
      const bool same = c.data[i] == g.data[i] || (std::isnan(c.data[i]) && std::isnan(g.data[i]));
      if (!same)
        return "frame " + std::to_string(t) + " pixel (" + std::to_string(i % size_t(width)) + ", " +
               std::to_string(i / size_t(width)) + "): cpu " + std::to_string(c.data[i]) + ", gpu " +
               std::to_string(g.data[i]);
    }
  }
  return "";
}

double time_temporal(int width, int height, int warmup, int runs) {
  if (!probe().available) throw Error(probe().reason);
  const size_t n = size_t(width) * size_t(height);
  const std::string ctx = "temporal timing";
  DeviceBuffer depth(n * 4, ctx), image(n * 4, ctx), running(n * 4, ctx), prev(n * 3, ctx);
  SATLAB_CUDA(cudaMemset(depth.p, 0, n * 4), ctx);
  SATLAB_CUDA(cudaMemset(image.p, 0x40, n * 4), ctx);
  TemporalArgs a;
  a.depth = depth.f(), a.image = image.p, a.running = running.f(), a.prev_rgb = static_cast<uint8_t*>(prev.p);
  a.width = width, a.height = height, a.depth_s2 = 0.04f, a.colour_s2 = 144.f, a.history = 0.9f;
  const Variant& v = temporal_variant("gated");
  cudaEvent_t e0, e1;
  SATLAB_CUDA(cudaEventCreate(&e0), ctx);
  SATLAB_CUDA(cudaEventCreate(&e1), ctx);
  std::vector<double> ms;
  for (int i = 0; i < warmup + runs; ++i) {
    a.first = i == 0;
    SATLAB_CUDA(cudaEventRecord(e0), ctx);
    v.temporal(a);
    SATLAB_CUDA(cudaEventRecord(e1), ctx);
    SATLAB_CUDA(cudaEventSynchronize(e1), ctx);
    float t = 0;
    SATLAB_CUDA(cudaEventElapsedTime(&t, e0, e1), ctx);
    if (i >= warmup) ms.push_back(t);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace satlab::gpu
