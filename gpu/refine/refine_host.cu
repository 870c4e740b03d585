// Host side of the GPU refiners: the registry variants (one per core refiner), the upload-run-download
// entry and the timed runs of `satlab bench depth`.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/refine_grid.hpp"
#include "gpu/check.hpp"
#include "gpu/host_timing.hpp"
#include "gpu/device.hpp"
#include "gpu/refine/refine_gpu.hpp"
#include "gpu/refine/refine_common.cuh"
#include "gpu/refine/refine_run.hpp"

namespace satlab::gpu {
namespace {

using namespace refine_detail;

struct Buffer : DeviceBuffer {
  explicit Buffer(size_t bytes) : DeviceBuffer(bytes, "a refiner") {}
};

std::function<void(const RefineArgs&)> launch_of(const std::string& name) {
  if (name == "none") return refine_none;
  if (name == "guided") return refine_guided;
  if (name == "wmedian") return [](const RefineArgs& a) { refine_samples(a, refine::Reduce::Median); };
  if (name == "jbu") return [](const RefineArgs& a) { refine_samples(a, refine::Reduce::Mean); };
  if (name == "snap") return [](const RefineArgs& a) { refine_samples(a, refine::Reduce::Max); };
  // A refiner core has and the GPU lacks: registered, so that verify reports it, but it cannot run.
  return [name](const RefineArgs&) { throw Error("refiner " + name + " has no GPU version"); };
}

// A synthetic scene for the timings: the image's colour regions follow the depth's (so the colour weights
// vary as on a photograph), with texture; the depth has planes, a slope and a disc, in 8-bit steps, as a
// phone's map.
void bench_scene(int W, int H, int w, int h, std::vector<uint32_t>& image, std::vector<float>& depth) {
  std::mt19937 rng(7);
  auto region = [](double fx, double fy) {
    const double dx = fx - 0.62, dy = fy - 0.45;
    return dx * dx + dy * dy < 0.04 ? 0 : fx < 0.3 ? 1 : 2;
  };
  image.resize(size_t(W) * size_t(H));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const int r = region((x + 0.5) / W, (y + 0.5) / H);
      const uint32_t tex = rng() % 24;
      const uint32_t c[3] = {r == 0   ? 200u
                             : r == 1 ? 60u
                                      : 120u,
                             r == 0   ? 90u
                             : r == 1 ? 140u
                                      : 120u,
                             r == 0   ? 40u
                             : r == 1 ? 70u
                                      : 160u};
      image[size_t(y) * size_t(W) + size_t(x)] =
          (c[0] + tex) | (c[1] + tex) << 8 | (c[2] + (x / 16 + y / 16) % 2 * 20) << 16 | 255u << 24;
    }
  depth.resize(size_t(w) * size_t(h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double fx = (x + 0.5) / w, fy = (y + 0.5) / h;
      const int r = region(fx, fy);
      const double d = r == 0 ? 0.15 : r == 1 ? 0.4 + 0.3 * fy : 0.9;
      depth[size_t(y) * size_t(w) + size_t(x)] = float(std::round(d * 255.0) / 255.0);
    }
}

}  // namespace

namespace refine_detail {

const Variant& refine_variant(const std::string& name) {
  for (const Variant& v : variants())
    if (v.family == Family::Refine && v.name == name) return v;
  throw Error("unknown refiner '" + name + "' (valid: " + refiner_list() + ")");
}

ImageF run_refine(const Variant& v, const RefineInput& in, float* guided_info) {
  refine::check_input(in);
  if (!probe().available) throw Error(probe().reason);
  const ImageRGBA8& img = *in.image;
  const ImageF& d = *in.depth;
  if (v.name == "guided" &&
      std::none_of(d.data.begin(), d.data.end(), [](float x) { return std::isfinite(x); }))
    throw Error("refine: the depth has no finite value");  // as core's refine_guided
  const size_t n = img.pixels(), m = d.pixels();
  const std::string ctx = v.name + " " + std::to_string(d.width) + "x" + std::to_string(d.height) +
                          " depth to " + std::to_string(img.width) + "x" + std::to_string(img.height);
  Buffer di(n * 4), dd(m * 4), dc(in.confidence ? m * 4 : 0), dout(n * 4), dinfo(5 * sizeof(float));
  SATLAB_CUDA(cudaMemcpy(di.p, img.data.data(), n * 4, cudaMemcpyHostToDevice), ctx);
  SATLAB_CUDA(cudaMemcpy(dd.p, d.data.data(), m * 4, cudaMemcpyHostToDevice), ctx);
  if (in.confidence)
    SATLAB_CUDA(cudaMemcpy(dc.p, in.confidence->data.data(), m * 4, cudaMemcpyHostToDevice), ctx);
  SATLAB_CUDA(cudaMemset(dout.p, 0xA5, n * 4), ctx);
  RefineArgs a;
  a.image = di.p;
  a.depth = dd.f();
  a.confidence = in.confidence ? dc.f() : nullptr;
  a.out = dout.f();
  a.width = img.width, a.height = img.height;
  a.depth_width = d.width, a.depth_height = d.height;
  a.guided_offsets = guided_info ? dinfo.f() : nullptr;
  v.refine(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), ctx);
  ImageF out(img.width, img.height, 1);
  SATLAB_CUDA(cudaMemcpy(out.data.data(), dout.p, n * 4, cudaMemcpyDeviceToHost), ctx);
  if (guided_info)
    SATLAB_CUDA(cudaMemcpy(guided_info, dinfo.p, 5 * sizeof(float), cudaMemcpyDeviceToHost), ctx);
  return out;
}

}  // namespace refine_detail

std::vector<Variant> refine_variants() {
  std::vector<Variant> r;
  for (const Refiner& f : refiners()) {
    Variant v;
    v.name = f.name;
    v.family = Family::Refine;
    v.label = f.label;
    v.source = f.source;
    v.dtypes = {DType::RGBA8};
    // The minimum: the image read and the output written (8 B/px), a depth map of a sixteenth of the pixels
    // read (a phone's, a quarter of each side); satlab bench depth counts the depth it runs.
    v.bytes = [](size_t n, DType) { return double(n) * 8.0 + double(n) / 16.0 * 4.0; };
    v.refuses = [](size_t, DType t) -> std::string { return t == DType::RGBA8 ? "" : "RGBA8 images only"; };
    v.refine = launch_of(f.name);
    r.push_back(std::move(v));
  }
  return r;
}

ImageF refine_gpu(const std::string& name, const RefineInput& in) {
  return run_refine(refine_variant(name), in);
}

RefineTiming time_refine(const std::string& name, int W, int H, int w, int h, int warmup, int runs) {
  if (W <= 0 || H <= 0 || w <= 0 || h <= 0) throw Error("time_refine: empty size");
  const Variant& v = refine_variant(name);
  std::vector<uint32_t> image;
  std::vector<float> depth;
  bench_scene(W, H, w, h, image, depth);
  const size_t n = size_t(W) * size_t(H), m = size_t(w) * size_t(h);
  const std::string ctx = name + " bench " + std::to_string(w) + "x" + std::to_string(h) + " to " +
                          std::to_string(W) + "x" + std::to_string(H);
  const int copies = input_copies(n * 4 + m * 4, 2);
  std::vector<std::unique_ptr<Buffer>> imgs, depths;
  for (int c = 0; c < copies; ++c) {
    imgs.push_back(std::make_unique<Buffer>(n * 4));
    depths.push_back(std::make_unique<Buffer>(m * 4));
    SATLAB_CUDA(cudaMemcpy(imgs.back()->p, image.data(), n * 4, cudaMemcpyHostToDevice), ctx);
    SATLAB_CUDA(cudaMemcpy(depths.back()->p, depth.data(), m * 4, cudaMemcpyHostToDevice), ctx);
  }
  Buffer out(n * 4);
  RefineArgs a;
  a.out = out.f();
  a.width = W, a.height = H, a.depth_width = w, a.depth_height = h;
  size_t turn = 0;
  auto next = [&] {
    a.image = imgs[turn % size_t(copies)]->p;
    a.depth = depths[turn % size_t(copies)]->f();
    ++turn;
  };
  for (int i = 0; i < warmup; ++i) next(), v.refine(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), ctx + " warm-up");
  RefineTiming t;
  t.min_bytes = double(n) * 8.0 + double(m) * 4.0;
  {  // whole runs, issued back to back: each time is the GPU's span of one run
    EventSet e;
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> span;
    for (int i = 0; i < std::max(runs, 1); ++i) {
      cudaEvent_t b = e.add(), en = e.add();
      next();
      SATLAB_CUDA(cudaEventRecord(b), "record");
      v.refine(a);
      SATLAB_CUDA(cudaEventRecord(en), "record");
      span.emplace_back(b, en);
    }
    SATLAB_CUDA(cudaDeviceSynchronize(), ctx + " timed runs");
    std::vector<double> ms;
    for (auto& [b, en] : span) ms.push_back(elapsed_ms(b, en));
    t.median_ms = median_of(ms);
  }
  // Per phase: an event before each phase's launches (apart from the whole runs, so that the hook's host
  // work never enters their times).
  t.phases = phase_medians(runs, ctx, [&](auto hook) {
    a.phase = hook;
    next();
    v.refine(a);
  });
  a.phase = nullptr;
  return t;
}

}  // namespace satlab::gpu
