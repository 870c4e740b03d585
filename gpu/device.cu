#include <cuda_runtime.h>

#include "gpu/device.hpp"

namespace satlab::gpu {

const DeviceInfo& probe() {
  static const DeviceInfo info = [] {
    DeviceInfo d;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      d.reason = std::string("no CUDA device: ") + cudaGetErrorString(e);
      cudaGetLastError();
      return d;
    }
    if (count == 0) {
      d.reason = "no CUDA device found";
      return d;
    }
    cudaDeviceProp prop{};
    e = cudaGetDeviceProperties(&prop, 0);
    if (e != cudaSuccess) {
      d.reason = std::string("cannot query CUDA device 0: ") + cudaGetErrorString(e);
      return d;
    }
    d.available = true;
    d.name = prop.name;
    d.sm_count = prop.multiProcessorCount;
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.total_memory = prop.totalGlobalMem;
    d.l2_bytes = size_t(prop.l2CacheSize);
    return d;
  }();
  return info;
}

size_t device_memory_in_use() {
  if (!probe().available) return 0;
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return total - free;
}

}  // namespace satlab::gpu
