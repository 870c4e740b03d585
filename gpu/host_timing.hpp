// Host-side helpers of the GPU drivers that upload, time and download on their own (gpu/depth, gpu/refine,
// gpu/verify.cpp): a device buffer freed on every path out, CUDA events destroyed with their owner, a median.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gpu/check.hpp"

namespace satlab::gpu {

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes, const std::string& what = "") {
    SATLAB_CUDA(cudaMalloc(&p, std::max<size_t>(bytes, 1)),
                std::to_string(bytes) + " bytes" + (what.empty() ? "" : " for " + what));
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* f() const { return static_cast<float*>(p); }
};

struct EventSet {
  std::vector<cudaEvent_t> ev;
  cudaEvent_t add() {
    ev.emplace_back();
    SATLAB_CUDA(cudaEventCreate(&ev.back()), "event");
    return ev.back();
  }
  ~EventSet() {
    for (cudaEvent_t e : ev) cudaEventDestroy(e);
  }
};

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  SATLAB_CUDA(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  return ms;
}

// Medians per phase over `runs` runs: run(hook) enqueues one run, calling hook(name) before each phase's
// launches; an event is recorded there and after the run (apart from whole-run timings, so that the hook's
// host work never enters them). `what` names the runs in a CUDA error.
template <typename Run>
std::vector<std::pair<std::string, double>> phase_medians(int runs, const std::string& what, Run&& run) {
  std::vector<std::string> names;
  std::vector<std::vector<double>> ms;
  for (int i = 0; i < std::max(runs, 1); ++i) {
    EventSet e;
    std::vector<std::string> seen;
    run([&](const char* s) {
      SATLAB_CUDA(cudaEventRecord(e.add()), "record");
      seen.push_back(s);
    });
    SATLAB_CUDA(cudaEventRecord(e.add()), "record");
    SATLAB_CUDA(cudaDeviceSynchronize(), what + " phase-timed run");
    if (names.empty()) names = seen, ms.resize(seen.size());
    for (size_t s = 0; s < seen.size() && s < ms.size(); ++s) ms[s].push_back(elapsed_ms(e.ev[s], e.ev[s + 1]));
  }
  std::vector<std::pair<std::string, double>> out;
  for (size_t s = 0; s < names.size(); ++s) out.emplace_back(names[s], median_of(ms[s]));
  return out;
}

}  // namespace satlab::gpu
