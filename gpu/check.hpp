// The CUDA error check of the library: every runtime call goes through SATLAB_CUDA, every launch is
// followed by SATLAB_LAUNCHED. Failures throw satlab::Error naming the call, file:line and the sizes.
// Also the library's stream-ordered scratch memory (checked allocations from the device pool).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/error.hpp"

namespace satlab::gpu {

[[noreturn]] inline void cuda_fail(cudaError_t e, const char* call, const char* file, int line,
                                   const std::string& context) {
  std::string f = file;
  f = f.substr(f.find_last_of('/') + 1);
  throw Error(std::string(call) + " failed (" + cudaGetErrorString(e) + ") at " + f + ":" + std::to_string(line) +
              (context.empty() ? "" : " [" + context + "]"));
}

}  // namespace satlab::gpu

// SATLAB_CUDA(call, context): context is any expression convertible to std::string (sizes etc.).
#define SATLAB_CUDA(call, context)                                                                          \
  do {                                                                                                      \
    cudaError_t satlab_e_ = (call);                                                                         \
    if (satlab_e_ != cudaSuccess) ::satlab::gpu::cuda_fail(satlab_e_, #call, __FILE__, __LINE__, (context)); \
  } while (0)

// After a <<<>>> launch: configuration errors now, execution errors at the next synchronisation.
#define SATLAB_LAUNCHED(kernel, context) SATLAB_CUDA(cudaGetLastError(), std::string(kernel) + " " + (context))

namespace satlab::gpu {

// Scratch from the device's default memory pool, allocated and freed in stream order. The pool keeps
// freed memory (release threshold raised once), so warm calls allocate nothing from the driver.
class Scratch {
 public:
  Scratch(size_t bytes, cudaStream_t s) : s_(s) {
    static const bool keep = [] {
      cudaMemPool_t pool;
      uint64_t threshold = UINT64_MAX;
      if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess)
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
      return true;
    }();
    (void)keep;
    SATLAB_CUDA(cudaMallocAsync(&p_, bytes ? bytes : 1, s_), std::to_string(bytes) + " bytes of scratch");
  }
  ~Scratch() { cudaFreeAsync(p_, s_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <typename T>
  T* as(size_t offset = 0) const {
    if constexpr (std::is_void_v<T>) return p_;
    else return static_cast<T*>(p_) + offset;
  }

 private:
  void* p_ = nullptr;
  cudaStream_t s_;
};

}  // namespace satlab::gpu
