// The single-pass SAT builders' look-back words: lookback::EpochWord of gpu/common/lookback.cuh (the
// protocol, the look-backs and the words' layout are documented there), a value, its flag and the launch's
// epoch in one 64-bit word, so that one aligned store publishes all three and no fence orders them; a word
// of another epoch reads as not yet published, so the words need no reset between launches
// (lookback_words, below, hands out the epochs).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/variant.hpp"
#include "gpu/common/lookback.cuh"

namespace satlab::gpu::sat_detail {

constexpr int kMaxWindow = 8;  // words of a chain read at once
constexpr unsigned kFlagA = lookback::kAggregate, kFlagP = lookback::kInclusive;
using lookback::kMaxEpoch;  // then the words are zeroed and it starts at 1

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

// The words' codec with this launch's epoch, and the calls the builders make with it (gpu/common/lookback.cuh
// does the work: these only bind the epoch).
template <typename Acc>
__device__ __forceinline__ lookback::EpochWord<Acc> codec(unsigned epoch) {
  return lookback::EpochWord<Acc>{epoch};
}
template <typename Acc>
__device__ __forceinline__ unsigned long long pack(Acc v, unsigned flag, unsigned epoch) {
  return codec<Acc>(epoch).pack(flag, v);
}
// The word's flag, or 0 where it belongs to another launch.
template <typename Acc>
__device__ __forceinline__ unsigned flag_of(unsigned long long w, unsigned epoch) {
  return codec<Acc>(epoch).flag(w);
}
template <typename Acc>
__device__ __forceinline__ Acc value_of(unsigned long long w) {
  return codec<Acc>(0).value(w);
}
// Publishes a word (one 64-bit store, seen whole by the readers' loads).
__device__ __forceinline__ void publish(unsigned long long* w, unsigned long long word) {
  lookback::store(w, word);
}

// The sum over the predecessors of element `index` of a chain of words `stride` apart from `base`
// (lookback::look_back_chain, ReloadWindow: first_window words, then window, at most MAXW).
template <typename Acc, int MAXW = kMaxWindow>
__device__ __forceinline__ Acc look_back(const unsigned long long* base, size_t stride, int index,
                                         int first_window, int window, unsigned epoch) {
  return lookback::look_back_chain<MAXW>(base, stride, index, first_window, window, codec<Acc>(epoch));
}

// CH chains side by side, looked back together (lookback::look_back_chains): sat_lookback_2d's float row
// threads, a chain per channel.
template <typename Acc, int CH, int W>
__device__ __forceinline__ void look_back_multi(const unsigned long long* base, size_t stride, int index, int win,
                                                unsigned epoch, Acc (&sum)[CH]) {
  lookback::look_back_chains<CH, W>(base, stride, index, win, codec<Acc>(epoch), sum);
}

// One element of a chain (lookback::chain_step): publishes its aggregate, looks back, publishes its
// inclusive sum; returns the predecessors' sum.
template <typename Acc, int MAXW = kMaxWindow>
__device__ __forceinline__ Acc chain_step(unsigned long long* base, size_t stride, int index, Acc aggregate,
                                          int window, unsigned epoch) {
  return lookback::chain_step<MAXW>(base, stride, index, aggregate, window, codec<Acc>(epoch));
}

}  // namespace satlab::gpu::sat_detail
