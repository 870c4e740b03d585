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

// `wide`: the builder also takes RGBA16 (4 channels of uint16).
inline void check_args(const SatArgs& a, bool integer, bool wide = false) {
  if (a.width <= 0 || a.height <= 0 || !a.in || !a.out) throw Error("SAT of an empty image or null pointers");
  const bool ok = integer ? (a.dtype == DType::U8 && a.channels == 1) ||
                                (a.dtype == DType::RGBA8 && a.channels == 4) ||
                                (wide && a.dtype == DType::RGBA16 && a.channels == 4)
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

// The 16 bytes of q as 16 8-bit elements or 4 floats (In), each widened to Out (the builder's sum type).
template <typename In, typename Out, int V>
__device__ __forceinline__ void unpack16(const uint4& q, Out (&v)[V]) {
  static_assert(V * sizeof(In) == 16, "16 bytes of In");
  if constexpr (sizeof(In) == 1) {
    const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int k = 0; k < 16; ++k) v[k] = Out((w[k >> 2] >> (8 * (k & 3))) & 0xffu);
  } else {
    v[0] = Out(__uint_as_float(q.x)), v[1] = Out(__uint_as_float(q.y)), v[2] = Out(__uint_as_float(q.z)),
    v[3] = Out(__uint_as_float(q.w));
  }
}

inline unsigned ceil_div(size_t a, size_t b) { return unsigned((a + b - 1) / b); }

// Carry chains: many independent in-place exclusive scans of n elements each (p[k * stride] becomes
// the sum of the elements before it). A 256-thread block takes 32 chains (lanes) and walks 8 segments of
// each at once (warps), loads 8 deep: about n / 32 dependent memory round trips instead of n / 8 for one
// thread per chain. `base(c)` is the offset of chain c's first element; every thread of the block must
// call it (it synchronises).
constexpr int kChainLanes = 32, kChainSegments = 8;
template <typename T, typename Base>
__device__ void exclusive_chains(T* __restrict__ p, Base base, size_t stride, int chains, int n, int chain0) {
  __shared__ T tot[kChainSegments][kChainLanes];
  const int lane = threadIdx.x % kChainLanes, seg = threadIdx.x / kChainLanes, c = chain0 + lane;
  const int len = (n + kChainSegments - 1) / kChainSegments, b = min(n, seg * len), e = min(n, b + len);
  T* q = c < chains ? p + base(c) : nullptr;
  auto walk = [&](T run, bool write) {
    for (int k0 = b; q && k0 < e; k0 += 8) {
      T v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) v[u] = k0 + u < e ? q[size_t(k0 + u) * stride] : T(0);
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        if (write && k0 + u < e) q[size_t(k0 + u) * stride] = run;
        run += v[u];
      }
    }
    return run;
  };
  tot[seg][lane] = walk(T(0), false);
  __syncthreads();
  T run = T(0);
  for (int s = 0; s < seg; ++s) run += tot[s][lane];
  walk(run, true);
  __syncthreads();  // tot may be reused by a following call
}

struct StridedBase {  // chain c starts at c * step
  size_t step;
  __device__ size_t operator()(int c) const { return size_t(c) * step; }
};

}  // namespace satlab::gpu::sat_detail
