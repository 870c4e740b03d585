// The tile-status protocol of the single-pass decoupled look-back scans (Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", 2016), shared by every look-back variant: one 64-bit
// status word per tile holds a flag (0: not yet published, A: the tile's aggregate, P: its inclusive
// prefix) and the 32-bit value, written and read with single 8-byte accesses, so no reader sees a flag
// without its value.
#pragma once
#include <cuda_runtime.h>

#include <cstdlib>
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

// Nanoseconds a tile waits after publishing its aggregate before its first look-back read, so that its
// predecessors have likely published theirs and the warp does not spin on unpublished words in L2 (CUB's
// sm90 scans wait similarly). Measured on the H100 at 2^28 int32 (docs/performance.md, Primitives):
// lookback_pipelined 0.71 C without, 0.81 C at 2600-3500 ns, 0.73 C at 4500 ns and beyond;
// lookback_speculative 0.72 -> 0.76 C at 1800-2600 ns; at 2^22 (one or two rounds of tiles) any pause
// costs. So: `tuned` when the launch has at least 4 rounds of tiles (tiles >= 4x the blocks resident at
// once), else 0. gpu::force_first_poll_ns (gpu/bench/primitives.hpp) overrides it at every size, for
// `satlab bench primitives --first-poll-ns` sweeps and for the sanitizer runs to cover the pause at small
// sizes. Host side.
long& forced_first_poll_ns();  // -1: not forced (gpu/scan/first_poll.cpp)
inline unsigned first_poll_ns(size_t tiles, size_t resident_blocks, unsigned tuned) {
  const long forced = forced_first_poll_ns();
  if (forced >= 0) return unsigned(forced);
  return tiles >= 4 * resident_blocks ? tuned : 0;
}

// Called by one whole warp for tile `tile` (> 0): the sum of all elements before the tile. The warp reads
// 32 predecessors at a time (lane 0 the nearest) and adds them up to the nearest inclusive prefix; it
// waits (backing off) only while a predecessor it needs, one up to that prefix, is still unpublished.
// `first_poll_ns`: a pause before the first read (see first_poll_ns()).
template <typename T>
__device__ T look_back(const unsigned long long* status, long long tile, unsigned first_poll_ns = 0) {
  const int lane = threadIdx.x & 31;
  T prefix = T(0);
  if (first_poll_ns) __nanosleep(first_poll_ns);
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
