// The first-poll pause of the look-back scans and the single-pass compaction (host side): the tile
// status words and the look-back itself are gpu/common/lookback.cuh's (lookback::Word64, look_back_warp,
// whose first_poll_ns this chooses).
#pragma once
#include <cstddef>

namespace satlab::gpu::scan::lookback {

// Nanoseconds a tile waits after publishing its aggregate before its first look-back read, so that its
// predecessors have likely published theirs and the warp does not spin on unpublished words in L2 (CUB's
// sm90 scans wait similarly). Measured on the H100 at 2^28 int32 (docs/performance.md, "Primitives:
// reductions and scans"): lookback_pipelined 0.71 C without, 0.81 C at 2600-3500 ns, 0.73 C at 4500 ns
// and beyond; lookback_speculative 0.72 -> 0.76 C at 1800-2600 ns; at 2^22 (one or two rounds of tiles)
// any pause costs. So: `tuned` when the launch has at least 4 rounds of tiles (tiles >= 4x the blocks
// resident at once), else 0. gpu::force_first_poll_ns (gpu/bench/primitives.hpp) overrides it at every
// size, for `satlab bench primitives --first-poll-ns` sweeps and for the sanitizer runs to cover the
// pause at small sizes. Host side.
long& forced_first_poll_ns();  // -1: not forced (gpu/scan/first_poll.cpp)
inline unsigned first_poll_ns(size_t tiles, size_t resident_blocks, unsigned tuned) {
  const long forced = forced_first_poll_ns();
  if (forced >= 0) return unsigned(forced);
  return tiles >= 4 * resident_blocks ? tuned : 0;
}

}  // namespace satlab::gpu::scan::lookback
