// The single-pass SAT builders' look-back words, lookback::EpochWord of gpu/common/lookback.cuh (the
// protocol, the look-backs and the words' layout are documented there): a value, its flag and the launch's
// epoch in one 64-bit word, so that one aligned store publishes all three and no fence orders them; a word
// of another epoch reads as not yet published, so the words need no reset between launches. The builders
// call the component with lookback::EpochWord<Acc>{epoch}; lookback_words, below, hands out the epochs.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/variant.hpp"
#include "gpu/common/lookback.cuh"

namespace satlab::gpu::sat_detail {

constexpr int kMaxWindow = 8;  // words of a chain read at once (registers)
using lookback::kMaxEpoch;     // then the words are zeroed and it starts at 1

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

}  // namespace satlab::gpu::sat_detail
