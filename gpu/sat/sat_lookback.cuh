// Decoupled look-back words (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016) for the single-pass SAT builders: a value and its flag in one 64-bit word, so that one
// aligned store publishes both and no fence orders them. Flag 0: not yet published (the words are zeroed
// before a launch); kFlagA: the element's own aggregate; kFlagP: its inclusive prefix. uint32 values take
// the high half for the flag; float64 values give up their 2 lowest mantissa bits (2^-51 relative).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace satlab::gpu::sat_detail {

constexpr int kMaxWindow = 8;  // words of a chain read at once
constexpr unsigned kFlagA = 1, kFlagP = 2;

// Status words: value and flag (0: not yet published, kFlagA, kFlagP) in one 64-bit word.
__device__ __forceinline__ unsigned long long pack(uint32_t v, unsigned flag) {
  return (static_cast<unsigned long long>(flag) << 32) | v;
}
__device__ __forceinline__ unsigned long long pack(double v, unsigned flag) {
  return (static_cast<unsigned long long>(__double_as_longlong(v)) & ~3ull) | flag;
}
template <typename Acc>
__device__ __forceinline__ unsigned flag_of(unsigned long long w) {
  return std::is_same_v<Acc, uint32_t> ? unsigned(w >> 32) : unsigned(w & 3u);
}
template <typename Acc>
__device__ __forceinline__ Acc value_of(unsigned long long w) {
  if constexpr (std::is_same_v<Acc, uint32_t>)
    return uint32_t(w);
  else
    return __longlong_as_double(static_cast<long long>(w & ~3ull));
}

// The sum over the predecessors of element `index` of a chain of words `stride` apart from `base` (all of
// index - 1 down to 0): the words read a window at a time (first_window, then window, at most kMaxWindow),
// added up to the nearest inclusive one; a word not yet published is read again after a pause.
template <typename Acc>
__device__ __forceinline__ Acc look_back(const unsigned long long* base, size_t stride, int index,
                                         int first_window, int window) {
  Acc sum = Acc(0);
  int win = first_window;
  for (int b = index - 1;;) {
    unsigned long long w[kMaxWindow];
#pragma unroll
    for (int u = 0; u < kMaxWindow; ++u)
      w[u] = u >= win ? 0ull
             : b - u >= 0
                 ? *reinterpret_cast<const volatile unsigned long long*>(base + size_t(b - u) * stride)
                 : pack(Acc(0), kFlagP);  // above the image: nothing to add
    int n = 0;
    bool found = false, blocked = false;
#pragma unroll
    for (int u = 0; u < kMaxWindow; ++u) {
      if (found || blocked || u >= win) continue;
      const unsigned f = flag_of<Acc>(w[u]);
      if (f == 0) {
        blocked = true;
        continue;
      }
      sum += value_of<Acc>(w[u]);
      ++n;
      found = f == kFlagP;
    }
    if (found) return sum;
    b -= n;
    if (blocked)
      __nanosleep(64);
    else
      win = window;
  }
}

// Publishes a word (a plain 64-bit store, seen whole by the readers' volatile loads).
__device__ __forceinline__ void publish(unsigned long long* w, unsigned long long word) {
  *reinterpret_cast<volatile unsigned long long*>(w) = word;
}

// One element of a chain of words `stride` apart from `base`: publishes its aggregate, adds up its
// predecessors' words (look_back), publishes its inclusive sum; returns the predecessors' sum (0 for
// element 0, which publishes its inclusive sum at once).
template <typename Acc>
__device__ __forceinline__ Acc chain_step(unsigned long long* base, size_t stride, int index, Acc aggregate,
                                          int window) {
  unsigned long long* own = base + size_t(index) * stride;
  Acc before = Acc(0);
  if (index > 0) {
    publish(own, pack(aggregate, kFlagA));
    before = look_back<Acc>(base, stride, index, window, window);
  }
  publish(own, pack(Acc(before + aggregate), kFlagP));
  return before;
}

}  // namespace satlab::gpu::sat_detail
