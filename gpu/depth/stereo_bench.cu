// Timing of the GPU stereo matcher for `satlab bench stereo`: buffers allocated and the pair uploaded
// once, then whole matches between CUDA events (each run waited for before the next: the time holds the
// launches' host work too), medians; stages from separate runs with an event before each stage.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gpu/check.hpp"
#include "gpu/depth/stereo_gpu.hpp"
#include "gpu/depth/stereo_internal.hpp"
#include "gpu/device.hpp"

namespace satlab::gpu {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

ImageRGBA8 random_rgba(int w, int h, uint32_t seed) {
  ImageRGBA8 img(w, h);
  std::mt19937 rng(seed);
  for (auto& v : img.data) v = uint8_t(rng() & 0xff);
  return img;
}

}  // namespace

StereoTiming time_stereo(int width, int height, const StereoParams& p, int warmup, int runs,
                         const std::string& sat_builder) {
  if (!probe().available) throw Error("stereo bench: " + probe().reason);
  StereoRun run(width, height, p, sat_builder);
  run.upload(random_rgba(width, height, 1), random_rgba(width, height, 2));
  cudaEvent_t a, b;
  SATLAB_CUDA(cudaEventCreate(&a), "cudaEventCreate");
  SATLAB_CUDA(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < warmup; ++i) run.enqueue(nullptr);
  SATLAB_CUDA(cudaDeviceSynchronize(), "stereo warm-up");
  std::vector<double> ms;
  for (int i = 0; i < std::max(runs, 1); ++i) {
    SATLAB_CUDA(cudaEventRecord(a), "cudaEventRecord");
    run.enqueue(nullptr);
    SATLAB_CUDA(cudaEventRecord(b), "cudaEventRecord");
    SATLAB_CUDA(cudaEventSynchronize(b), "stereo run");
    float t = 0;
    SATLAB_CUDA(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  StereoTiming r;
  r.runs = int(ms.size());
  r.median_ms = median(ms);
  r.min_ms = *std::min_element(ms.begin(), ms.end());
  // Stages: an event before each stage (stages repeat per stack: their times add up), one at the end.
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> per_stage;
  std::vector<cudaEvent_t> ev;
  for (int i = 0; i < std::max(runs, 1); ++i) {
    std::vector<std::string> names;
    size_t next = 0;
    auto record = [&](const char* name) {
      if (next == ev.size()) {
        ev.emplace_back();
        SATLAB_CUDA(cudaEventCreate(&ev.back()), "cudaEventCreate");
      }
      SATLAB_CUDA(cudaEventRecord(ev[next++]), "cudaEventRecord");
      names.push_back(name);
    };
    run.enqueue(nullptr, record);
    record("end");
    SATLAB_CUDA(cudaDeviceSynchronize(), "stereo stage run");
    std::map<std::string, double> sum;
    for (size_t k = 0; k + 1 < names.size(); ++k) {
      float t = 0;
      SATLAB_CUDA(cudaEventElapsedTime(&t, ev[k], ev[k + 1]), "cudaEventElapsedTime");
      if (!sum.count(names[k])) order.push_back(names[k]);
      sum[names[k]] += t;
    }
    for (auto& [name, t] : sum) per_stage[name].push_back(t);
  }
  std::vector<std::string> seen;
  for (const std::string& name : order)
    if (std::find(seen.begin(), seen.end(), name) == seen.end()) {
      seen.push_back(name);
      r.stages.emplace_back(name, median(per_stage[name]));
    }
  for (cudaEvent_t e : ev) cudaEventDestroy(e);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return r;
}

}  // namespace satlab::gpu
