// Shared pieces of the SAT builders: CUDA error checks, argument checks, stream-ordered scratch memory.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/variant.hpp"

namespace satlab::gpu::sat_detail {

inline std::string dims(const SatArgs& a) {
  return std::to_string(a.width) + "x" + std::to_string(a.height) + "x" + std::to_string(a.channels);
}

inline void cuda_check(cudaError_t e, const char* what, const SatArgs& a) {
  if (e != cudaSuccess)
    throw Error(std::string(what) + " failed on a " + dims(a) + " SAT: " + cudaGetErrorString(e));
}

// Tells the caller (SatArgs::phase, when set) that the next phase is about to be enqueued.
inline void phase(const SatArgs& a, const char* name) {
  if (a.phase) a.phase(name);
}

// Launch errors (bad configuration) are reported at once; execution errors surface at the next sync.
inline void launch_check(const char* kernel, const SatArgs& a) { cuda_check(cudaGetLastError(), kernel, a); }

inline void check_args(const SatArgs& a, bool integer) {
  if (a.width <= 0 || a.height <= 0 || !a.in || !a.out) throw Error("SAT of an empty image or null pointers");
  const bool ok = integer ? (a.dtype == DType::U8 && a.channels == 1) || (a.dtype == DType::RGBA8 && a.channels == 4)
                          : a.dtype == DType::F32 && a.channels >= 1 && a.channels <= 4;
  if (!ok) throw Error(std::string("SAT builder does not take ") + to_string(a.dtype) + " with " +
                       std::to_string(a.channels) + " channels");
}

// Scratch memory from the device's default pool, freed in stream order (no synchronisation).
class Scratch {
 public:
  Scratch(size_t bytes, const SatArgs& a) : stream_(cudaStream_t(a.stream)) {
    static const bool pool_kept = [] {  // keep freed pool memory for the next frame
      cudaMemPool_t pool;
      uint64_t keep = UINT64_MAX;
      if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess)
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      return true;
    }();
    (void)pool_kept;
    cuda_check(cudaMallocAsync(&p_, bytes, stream_), "cudaMallocAsync of SAT scratch", a);
  }
  ~Scratch() { cudaFreeAsync(p_, stream_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <typename T>
  T* as(size_t offset_elems = 0) const {
    return reinterpret_cast<T*>(p_) + offset_elems;
  }

 private:
  void* p_ = nullptr;
  cudaStream_t stream_;
};

inline unsigned ceil_div(size_t a, size_t b) { return unsigned((a + b - 1) / b); }

}  // namespace satlab::gpu::sat_detail
