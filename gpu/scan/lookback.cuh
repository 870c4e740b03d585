// The tile-status protocol of the single-pass decoupled look-back scans (Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", 2016), shared by every look-back variant: one 64-bit
// status word per tile holds a flag (0: not yet published, A: the tile's aggregate, P: its inclusive
// prefix) and the 32-bit value, written and read with single 8-byte accesses, so no reader sees a flag
// without its value.
#pragma once
#include <cuda_runtime.h>

#include <type_traits>

namespace satlab::gpu::scan::lookback {

constexpr unsigned long long kFlagA = 1, kFlagP = 2;

template <typename T>
__device__ __forceinline__ unsigned to_bits(T v) {
  if constexpr (std::is_same_v<T, float>)
    return __float_as_uint(v);
  else
    return unsigned(v);
}
template <typename T>
__device__ __forceinline__ T from_bits(unsigned b) {
  if constexpr (std::is_same_v<T, float>)
    return __uint_as_float(b);
  else
    return T(b);
}

template <typename T>
__device__ __forceinline__ void publish(unsigned long long* status, unsigned long long flag, T v) {
  *reinterpret_cast<volatile unsigned long long*>(status) = (flag << 32) | to_bits(v);
}

// Called by one whole warp for tile `tile` (> 0): the sum of all elements before the tile. The warp reads
// 32 predecessors at a time (lane 0 the nearest) and adds them up to the nearest inclusive prefix; it
// waits (backing off) only while a predecessor it needs, one up to that prefix, is still unpublished.
template <typename T>
__device__ T look_back(const unsigned long long* status, long long tile) {
  const int lane = threadIdx.x & 31;
  T prefix = T(0);
  for (long long last = tile - 1;; last -= 32) {
    const long long idx = last - lane;
    unsigned long long w;
    unsigned p;
    for (unsigned delay = 32;; delay = delay < 512 ? 2 * delay : delay) {
      w = idx >= 0 ? *reinterpret_cast<const volatile unsigned long long*>(status + idx) : (kFlagP << 32);
      p = __ballot_sync(0xffffffffu, (w >> 32) == kFlagP);
      const unsigned needed = p ? ((p & (0u - p)) << 1) - 1 : 0xffffffffu;  // lanes up to the nearest P
      if (!(__ballot_sync(0xffffffffu, (w >> 32) == 0) & needed)) break;
      __nanosleep(delay);  // back off: spinning warps would compete with the tiles' own loads in L2
    }
    const int stop = p ? __ffs(p) - 1 : 31;
    T v = lane <= stop ? from_bits<T>(unsigned(w)) : T(0);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = v + __shfl_xor_sync(0xffffffffu, v, off);
    prefix = prefix + v;
    if (p) return prefix;
  }
}

}  // namespace satlab::gpu::scan::lookback
