// Decoupled look-back words (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016) for the single-pass SAT builders: a value, its flag and the launch's epoch in one
// 64-bit word, so that one aligned store publishes all three and no fence orders them. Flag kFlagA: the
// element's own aggregate; kFlagP: its inclusive prefix. A word whose epoch is not the launch's own was
// written by an earlier launch (or is still zero) and reads as not yet published, so the words need no
// reset between launches (lookback_words, below, hands out the epochs). The tag (epoch, flag) is the
// word's low 16 bits whatever the value's type, so that a word left by a launch of the other type is told
// apart as surely: uint32 values take the high half; float64 values give up their 16 lowest mantissa bits
// (a published sum keeps 36 mantissa bits: 2^-36 relative, far below the float output's rounding).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/variant.hpp"

namespace satlab::gpu::sat_detail {

constexpr int kMaxWindow = 8;  // words of a chain read at once
constexpr unsigned kFlagA = 1, kFlagP = 2;
constexpr unsigned kEpochBits = 14;                     // what a float64 word has room for
constexpr unsigned kMaxEpoch = (1u << kEpochBits) - 1;  // then the words are zeroed and it starts at 1
constexpr unsigned long long kTagMask = (1ull << (kEpochBits + 2)) - 1;  // epoch, flag

// The look-back words of one device and stream: zeroed once when (re)allocated, then each launch takes the
// next epoch (1, 2, ... kMaxEpoch, then zeroed again). Host code (sat_lookback_words.cu); `count` words of at
// least that many, and a counter apart from them that is 0 at every launch (a launch that counts with it
// sets it back to 0 before it ends); throws satlab::Error (out of memory, a stream being captured into a
// graph, whose replays would all carry one epoch).
struct LookbackWords {
  unsigned long long* words;
  unsigned* counter;
  unsigned epoch;
};
LookbackWords lookback_words(size_t count, const SatArgs& a);

__device__ __forceinline__ unsigned long long pack(uint32_t v, unsigned flag, unsigned epoch) {
  return (static_cast<unsigned long long>(v) << 32) | (epoch << 2) | flag;
}
__device__ __forceinline__ unsigned long long pack(double v, unsigned flag, unsigned epoch) {
  return (static_cast<unsigned long long>(__double_as_longlong(v)) & ~kTagMask) | (epoch << 2) | flag;
}
// The word's flag, or 0 where it belongs to another launch.
template <typename Acc>
__device__ __forceinline__ unsigned flag_of(unsigned long long w, unsigned epoch) {
  const unsigned tag = unsigned(w & kTagMask);
  return (tag >> 2) == epoch ? tag & 3u : 0u;
}
template <typename Acc>
__device__ __forceinline__ Acc value_of(unsigned long long w) {
  if constexpr (std::is_same_v<Acc, uint32_t>)
    return uint32_t(w >> 32);
  else
    return __longlong_as_double(static_cast<long long>(w & ~kTagMask));
}

// The sum over the predecessors of element `index` of a chain of words `stride` apart from `base` (all of
// index - 1 down to 0): the words read a window at a time (first_window, then window, at most kMaxWindow),
// added up to the nearest inclusive one; a word not yet published is read again after a pause.
template <typename Acc, int MAXW = kMaxWindow>
__device__ __forceinline__ Acc look_back(const unsigned long long* base, size_t stride, int index,
                                         int first_window, int window, unsigned epoch) {
  Acc sum = Acc(0);
  int win = first_window;
  for (int b = index - 1;;) {
    unsigned long long w[MAXW];
#pragma unroll
    for (int u = 0; u < MAXW; ++u)
      w[u] = u >= win ? 0ull
             : b - u >= 0
                 ? *reinterpret_cast<const volatile unsigned long long*>(base + size_t(b - u) * stride)
                 : pack(Acc(0), kFlagP, epoch);  // above the image: nothing to add
    int n = 0;
    bool found = false, blocked = false;
#pragma unroll
    for (int u = 0; u < MAXW; ++u) {
      if (found || blocked || u >= win) continue;
      const unsigned f = flag_of<Acc>(w[u], epoch);
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

// CH chains side by side (chain c's words at base + c, each chain's elements `stride` apart), element
// `index` of each: as look_back, but every window's loads of all CH chains are issued before any is used,
// so the CH look-backs cost the round trips of one (a thread with a chain per channel: sat_lookback_2d's
// float row threads). Windows of `win` words per chain (at most W); sum[c] receives chain c's
// predecessors' sum.
template <typename Acc, int CH, int W>
__device__ __forceinline__ void look_back_multi(const unsigned long long* base, size_t stride, int index, int win,
                                                unsigned epoch, Acc (&sum)[CH]) {
  int b[CH];
  bool done[CH];
#pragma unroll
  for (int c = 0; c < CH; ++c) sum[c] = Acc(0), b[c] = index - 1, done[c] = false;
  for (;;) {
    unsigned long long w[CH][W];
#pragma unroll
    for (int c = 0; c < CH; ++c)
#pragma unroll
      for (int u = 0; u < W; ++u)
        w[c][u] = done[c] || u >= win ? 0ull
                  : b[c] - u >= 0
                      ? *reinterpret_cast<const volatile unsigned long long*>(base + c + size_t(b[c] - u) * stride)
                      : pack(Acc(0), kFlagP, epoch);  // before the chain's start: nothing to add
    bool all = true, blocked = false;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      if (done[c]) continue;
      int n = 0;
      bool found = false, blk = false;
#pragma unroll
      for (int u = 0; u < W; ++u) {
        if (found || blk || u >= win) continue;
        const unsigned f = flag_of<Acc>(w[c][u], epoch);
        if (f == 0) {
          blk = true;
          continue;
        }
        sum[c] += value_of<Acc>(w[c][u]);
        ++n;
        found = f == kFlagP;
      }
      b[c] -= n;
      done[c] = found;
      all = all && found;
      blocked = blocked || blk;
    }
    if (all) return;
    if (blocked) __nanosleep(64);
  }
}

// Publishes a word (a plain 64-bit store, seen whole by the readers' volatile loads).
__device__ __forceinline__ void publish(unsigned long long* w, unsigned long long word) {
  *reinterpret_cast<volatile unsigned long long*>(w) = word;
}

// One element of a chain of words `stride` apart from `base`: publishes its aggregate, adds up its
// predecessors' words (look_back), publishes its inclusive sum; returns the predecessors' sum (0 for
// element 0, which publishes its inclusive sum at once).
template <typename Acc, int MAXW = kMaxWindow>
__device__ __forceinline__ Acc chain_step(unsigned long long* base, size_t stride, int index, Acc aggregate,
                                          int window, unsigned epoch) {
  unsigned long long* own = base + size_t(index) * stride;
  Acc before = Acc(0);
  if (index > 0) {
    publish(own, pack(aggregate, kFlagA, epoch));
    before = look_back<Acc, MAXW>(base, stride, index, min(window, MAXW), min(window, MAXW), epoch);
  }
  publish(own, pack(Acc(before + aggregate), kFlagP, epoch));
  return before;
}

}  // namespace satlab::gpu::sat_detail
