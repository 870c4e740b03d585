// Host-side helpers of the GPU drivers that upload, time and download on their own (gpu/depth, gpu/refine,
// gpu/verify.cpp): a device buffer freed on every path out, CUDA events destroyed with their owner, a median.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
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

}  // namespace satlab::gpu
