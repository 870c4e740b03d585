// Host drivers of the GPU guided filter: one upload-run-download call (tests, CLI, app) and timed runs
// (satlab bench depth).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/host_timing.hpp"
#include "gpu/depth/guided_filter_gpu.hpp"

namespace satlab::gpu {
namespace {

struct Buffer : DeviceBuffer {
  explicit Buffer(size_t bytes) : DeviceBuffer(bytes, "the guided filter") {}
};

}  // namespace

GuidedResult guided_filter_gpu(const ImageF& guide, const ImageF& p, const GuidedParams& g,
                               const std::string& sat) {
  validate(g);
  if (guide.empty() || p.empty() || guide.width != p.width || guide.height != p.height || p.channels != 1)
    throw Error("guided filter: the guide and p must be non-empty, of one size, p with 1 channel");
  const size_t n = p.pixels();
  GuidedResult r;
  const Variant* v = guided_sat_builder(sat);
  r.builder = v ? v->name : kGuidedOwnSat;
  Buffer dg(guide.data.size() * sizeof(float)), dp(n * sizeof(float)), dq(n * sizeof(float)),
      doff(4 * sizeof(float));
  SATLAB_CUDA(cudaMemcpy(dg.p, guide.data.data(), guide.data.size() * sizeof(float), cudaMemcpyHostToDevice),
              "guide");
  SATLAB_CUDA(cudaMemcpy(dp.p, p.data.data(), n * sizeof(float), cudaMemcpyHostToDevice), "p");
  SATLAB_CUDA(cudaMemset(dq.p, 0xFF, n * sizeof(float)), "poison q");  // NaN where unwritten
  GuidedDeviceArgs a;
  a.guide = dg.f();
  a.guide_channels = guide.channels;
  a.p = dp.f();
  a.q = dq.f();
  a.width = p.width;
  a.height = p.height;
  a.params = g;
  a.sat = v;
  a.offsets_out = doff.f();
  guided_filter(a);
  SATLAB_CUDA(cudaDeviceSynchronize(),
              "guided filter " + std::to_string(p.width) + "x" + std::to_string(p.height));
  r.q = ImageF(p.width, p.height, 1);
  SATLAB_CUDA(cudaMemcpy(r.q.data.data(), dq.p, n * sizeof(float), cudaMemcpyDeviceToHost), "q");
  float off[4];
  SATLAB_CUDA(cudaMemcpy(off, doff.p, sizeof(off), cudaMemcpyDeviceToHost), "offsets");
  r.offsets.guide = {off[0], off[1], off[2]};
  r.offsets.p = off[3];
  return r;
}

GuidedTiming time_guided(int w, int h, const GuidedParams& g, int warmup, int runs, const std::string& sat) {
  validate(g);
  const size_t n = size_t(w) * size_t(h);
  std::vector<float> host(n * 4);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : host) v = u(rng);
  Buffer dg(n * 3 * sizeof(float)), dp(n * sizeof(float)), dq(n * sizeof(float));
  SATLAB_CUDA(cudaMemcpy(dg.p, host.data(), n * 3 * sizeof(float), cudaMemcpyHostToDevice), "guide");
  SATLAB_CUDA(cudaMemcpy(dp.p, host.data() + n * 3, n * sizeof(float), cudaMemcpyHostToDevice), "p");
  GuidedTiming t;
  const Variant* v = guided_sat_builder(sat);
  t.builder = v ? v->name : kGuidedOwnSat;
  GuidedDeviceArgs a;
  a.guide = dg.f();
  a.guide_channels = 3;
  a.p = dp.f();
  a.q = dq.f();
  a.width = w;
  a.height = h;
  a.params = g;
  a.sat = v;
  for (int i = 0; i < warmup; ++i) guided_filter(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), "guided warm-up");
  // Whole runs, issued back to back (the host runs ahead; each time is the GPU's span of one run).
  {
    EventSet e;
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> span;
    for (int i = 0; i < std::max(runs, 1); ++i) {
      cudaEvent_t b = e.add(), en = e.add();
      SATLAB_CUDA(cudaEventRecord(b), "record");
      guided_filter(a);
      SATLAB_CUDA(cudaEventRecord(en), "record");
      span.emplace_back(b, en);
    }
    SATLAB_CUDA(cudaDeviceSynchronize(), "guided timed runs");
    std::vector<double> ms;
    for (auto& [b, en] : span) ms.push_back(elapsed_ms(b, en));
    t.median_ms = median_of(ms);
  }
  // Per stage: an event before each stage's launches.
  t.stages = phase_medians(runs, "guided", [&](auto hook) {
    a.phase = hook;
    guided_filter(a);
  });
  a.phase = nullptr;
  return t;
}

}  // namespace satlab::gpu
