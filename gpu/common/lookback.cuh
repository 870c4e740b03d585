// The decoupled look-back of every single-pass kernel (Merrill & Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", 2016; CUB's ScanTileState and TilePrefixCallbackOp): the scans and the
// compaction (gpu/scan, gpu/compact), the single-pass SAT builders' chains (gpu/sat) and the one-sweep
// sort's digit chains (gpu/sort/onesweep.cu).
//
// Protocol. A chain of elements (the tiles of a scan, the bands of a SAT column, the tiles of one digit)
// has one status word per element. Element i
//   1. publishes its aggregate (flag A) as soon as it has it, without waiting for anything;
//   2. reads its predecessors' words nearest first, adding their values up to the nearest word that holds
//      an inclusive prefix (flag P); it waits only on a word it needs that is not yet published;
//   3. publishes its inclusive prefix (flag P): what it added up plus its aggregate.
// Element 0 publishes P at once. Forward progress: an element waits only on elements that started before
// it and publish A without waiting. Each user guarantees this by its numbering (a ticket from an atomic
// counter, blocks dispatched in blockIdx order, or a grid that is all resident) and says which.
//
// Memory ordering. A word holds the flag and the value together and is written by one aligned volatile
// store and read by one aligned volatile load (single-copy atomic at 4 and 8 bytes), so no reader sees a
// flag without its value, and no fence is needed: a reader uses nothing but the word's own value.
//
// Words (the codec, a template parameter; each says how a word packs flag and value):
//   Word64<T>    8 bytes: the flag in the high half, a 32-bit T (uint32, int32, float) in the low; zeroed
//                before every launch (0: not published). The scans and the compaction.
//   EpochWord<T> 8 bytes: the value (uint32 in the high half, or a float64 without its 16 lowest mantissa
//                bits: 36 kept, 2^-36 relative), then the launch's epoch and the flag in the low 16 bits;
//                a word of another epoch reads as not published, so the words need no reset between
//                launches (the SAT builders: gpu/sat/sat_lookback.cuh hands out the epochs).
//   Word32       4 bytes: bit 31 P, bit 30 A, a value below 2^30 in bits 0-29; zeroed. The one-sweep sort.
//
// Look-backs:
//   look_back_warp   a whole warp reads 32 predecessors at once (lane 0 the nearest), adds them up by a
//                    warp reduction; backs off 32 .. 512 ns on an unpublished word it needs; an optional
//                    pause before its first read (first_poll_ns: the tile's predecessors have likely
//                    published by then, so the warp does not spin in L2). tile_prefix wraps it as the
//                    tile's prefix callback (publish A, look back, publish P).
//   look_back_chain  one thread reads W words at once (a window) down a chain of words `stride` apart;
//                    on an unpublished word it either takes the words before it, pauses and reads the
//                    window again from it (ReloadWindow: the SAT builders) or re-reads that word alone,
//                    backing off 32 .. 512 ns, and goes on (SpinOnWord: the sort). chain_step wraps it.
//   look_back_chains CH chains side by side, each window's loads of all chains issued together.
// Everything here is force-inlined: a user's kernel compiles to the loop it would write by hand.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gpu/common/warp.cuh"

namespace satlab::gpu::lookback {

constexpr unsigned kAggregate = 1, kInclusive = 2;  // flags; 0: not published
constexpr unsigned kBackoffMinNs = 32, kBackoffMaxNs = 512;

// The codecs: Word, Value, pack(flag, value), flag(word) (0, kAggregate or kInclusive), published(word),
// inclusive(word), value(word).

template <typename T>
struct Word64 {
  static_assert(sizeof(T) == 4, "a 32-bit value");
  using Word = unsigned long long;
  using Value = T;
  __device__ __forceinline__ static unsigned to_bits(T v) {
    if constexpr (std::is_same_v<T, float>)
      return __float_as_uint(v);
    else
      return unsigned(v);
  }
  __device__ __forceinline__ static T from_bits(unsigned b) {
    if constexpr (std::is_same_v<T, float>)
      return __uint_as_float(b);
    else
      return T(b);
  }
  __device__ __forceinline__ Word pack(unsigned flag, T v) const { return (Word(flag) << 32) | to_bits(v); }
  __device__ __forceinline__ unsigned flag(Word w) const { return unsigned(w >> 32); }
  __device__ __forceinline__ bool published(Word w) const { return (w >> 32) != 0; }
  __device__ __forceinline__ bool inclusive(Word w) const { return (w >> 32) == kInclusive; }
  __device__ __forceinline__ T value(Word w) const { return from_bits(unsigned(w)); }
};

constexpr unsigned kEpochBits = 14;                     // what a float64 word has room for
constexpr unsigned kMaxEpoch = (1u << kEpochBits) - 1;  // then the words are zeroed and it starts at 1
constexpr unsigned long long kEpochTagMask = (1ull << (kEpochBits + 2)) - 1;  // epoch, flag

// The tag (epoch, flag) is the low 16 bits whatever the value's type, so that a word left by a launch of
// the other type is told apart as surely.
template <typename T>
struct EpochWord {
  static_assert(std::is_same_v<T, uint32_t> || std::is_same_v<T, double>, "uint32 or float64");
  using Word = unsigned long long;
  using Value = T;
  unsigned epoch;  // this launch's, 1 .. kMaxEpoch
  __device__ __forceinline__ Word pack(unsigned flag, T v) const {
    if constexpr (std::is_same_v<T, uint32_t>)
      return (static_cast<unsigned long long>(v) << 32) | (epoch << 2) | flag;
    else
      return (static_cast<unsigned long long>(__double_as_longlong(v)) & ~kEpochTagMask) | (epoch << 2) |
             flag;
  }
  __device__ __forceinline__ unsigned flag(Word w) const {
    const unsigned tag = unsigned(w & kEpochTagMask);
    return (tag >> 2) == epoch ? tag & 3u : 0u;
  }
  __device__ __forceinline__ bool published(Word w) const { return flag(w) != 0; }
  __device__ __forceinline__ bool inclusive(Word w) const { return flag(w) == kInclusive; }
  __device__ __forceinline__ T value(Word w) const {
    if constexpr (std::is_same_v<T, uint32_t>)
      return uint32_t(w >> 32);
    else
      return __longlong_as_double(static_cast<long long>(w & ~kEpochTagMask));
  }
};

struct Word32 {
  using Word = unsigned;
  using Value = unsigned;
  static constexpr unsigned kA = kAggregate << 30, kP = kInclusive << 30, kValueMask = kA - 1u;
  // v < 2^30
  __device__ __forceinline__ Word pack(unsigned flag, unsigned v) const { return (flag << 30) | v; }
  __device__ __forceinline__ unsigned flag(Word w) const { return w >> 30; }
  __device__ __forceinline__ bool published(Word w) const { return (w & (kA | kP)) != 0; }
  __device__ __forceinline__ bool inclusive(Word w) const { return (w & kP) != 0; }
  __device__ __forceinline__ unsigned value(Word w) const { return w & kValueMask; }
};

// One whole-word access each way.
template <typename Word>
__device__ __forceinline__ Word load(const Word* w) {
  return *reinterpret_cast<const volatile Word*>(w);
}
template <typename Word>
__device__ __forceinline__ void store(Word* w, Word word) {
  *reinterpret_cast<volatile Word*>(w) = word;
}
template <class C>
__device__ __forceinline__ void publish(typename C::Word* w, unsigned flag, typename C::Value v, const C& c) {
  store(w, c.pack(flag, v));
}
template <class C>
__device__ __forceinline__ void publish_aggregate(typename C::Word* w, typename C::Value v, const C& c) {
  publish(w, kAggregate, v, c);
}
template <class C>
__device__ __forceinline__ void publish_inclusive(typename C::Word* w, typename C::Value v, const C& c) {
  publish(w, kInclusive, v, c);
}

// Called by one whole warp for tile `tile` (> 0) of words one per tile from `status`: the sum of the values
// of all tiles before it, in every lane. Reads 32 predecessors at a time (lane 0 the nearest) and adds them
// up to the nearest inclusive prefix; waits (backing off) only while a predecessor it needs, one up to that
// prefix, is still unpublished.
template <class C>
__device__ __forceinline__ typename C::Value look_back_warp(const typename C::Word* status, long long tile,
                                                            const C& c, unsigned first_poll_ns = 0) {
  using T = typename C::Value;
  using Word = typename C::Word;
  const int lane = warp::lane();
  T prefix = T(0);
  if (first_poll_ns) __nanosleep(first_poll_ns);
  for (long long last = tile - 1;; last -= 32) {
    const long long idx = last - lane;
    Word w;
    unsigned p;
    for (unsigned delay = kBackoffMinNs;; delay = delay < kBackoffMaxNs ? 2 * delay : delay) {
      w = idx >= 0 ? load(status + idx) : c.pack(kInclusive, T(0));
      p = __ballot_sync(warp::kAllLanes, c.inclusive(w));
      const unsigned needed = p ? ((p & (0u - p)) << 1) - 1 : 0xffffffffu;  // lanes up to the nearest P
      if (!(__ballot_sync(warp::kAllLanes, !c.published(w)) & needed)) break;
      __nanosleep(delay);  // back off: spinning warps would compete with the tiles' own loads in L2
    }
    const int stop = p ? __ffs(p) - 1 : 31;
    const T v = warp::all_reduce(lane <= stop ? c.value(w) : T(0));
    prefix = prefix + v;
    if (p) return prefix;
  }
}

// The prefix callback of a tile, called by one whole warp with the tile's aggregate: publishes it (tile 0:
// as its inclusive prefix), looks back (look_back_warp) and publishes the tile's inclusive prefix. Returns
// the sum over the tiles before it (0 for tile 0), in every lane.
template <class C, typename Index>
__device__ __forceinline__ typename C::Value tile_prefix(typename C::Word* status, Index tile,
                                                         typename C::Value aggregate, const C& c,
                                                         unsigned first_poll_ns = 0) {
  using T = typename C::Value;
  const bool leader = warp::lane() == 0;
  if (tile == 0) {
    if (leader) publish_inclusive(status, aggregate, c);
    return T(0);
  }
  if (leader) publish_aggregate(status + tile, aggregate, c);
  const T prefix = look_back_warp(status, tile, c, first_poll_ns);
  if (leader) publish_inclusive(status + tile, prefix + aggregate, c);
  return prefix;
}

// How look_back_chain waits on a word not yet published.
struct ReloadWindow {  // take the words before it, pause kPauseNs, read the window again from it
  static constexpr bool kSpin = false;
  static constexpr unsigned kPauseNs = 64;
};
struct SpinOnWord {  // re-read that word alone, backing off kBackoffMinNs .. kBackoffMaxNs, then go on
  static constexpr bool kSpin = true;
};

// One thread, element `index` (> 0) of a chain of words `stride` apart from `base`: the sum of the values
// of elements index - 1 down to 0. Reads W words at once (ReloadWindow: first_window words, then `window`
// after a window without P, both at most W; SpinOnWord: always W), nearest first, adding them up to the
// nearest inclusive prefix.
template <int W, class Wait = ReloadWindow, class C, typename Index>
__device__ __forceinline__ typename C::Value look_back_chain(const typename C::Word* base, size_t stride,
                                                             Index index, int first_window, int window,
                                                             const C& c) {
  using T = typename C::Value;
  using Word = typename C::Word;
  T sum = T(0);
  if constexpr (Wait::kSpin) {
    for (Index b = index - 1;; b -= W) {
      Word w[W];
#pragma unroll
      for (int u = 0; u < W; ++u)
        w[u] = b - u >= 0 ? load(base + size_t(b - u) * stride) : c.pack(kInclusive, T(0));
#pragma unroll
      for (int u = 0; u < W; ++u) {
        for (unsigned delay = kBackoffMinNs; !c.published(w[u]);
             delay = delay < kBackoffMaxNs ? 2 * delay : delay) {
          __nanosleep(delay);
          w[u] = load(base + size_t(b - u) * stride);
        }
        sum += c.value(w[u]);
        if (c.inclusive(w[u])) return sum;
      }
    }
  } else {
    int win = first_window;
    for (Index b = index - 1;;) {
      Word w[W];
#pragma unroll
      for (int u = 0; u < W; ++u)
        w[u] = u >= win     ? Word(0)
               : b - u >= 0 ? load(base + size_t(b - u) * stride)
                            : c.pack(kInclusive, T(0));  // before the chain's start: nothing to add
      int n = 0;
      bool found = false, blocked = false;
#pragma unroll
      for (int u = 0; u < W; ++u) {
        if (found || blocked || u >= win) continue;
        const unsigned f = c.flag(w[u]);
        if (f == 0) {
          blocked = true;
          continue;
        }
        sum += c.value(w[u]);
        ++n;
        found = f == kInclusive;
      }
      if (found) return sum;
      b -= n;
      if (blocked)
        __nanosleep(Wait::kPauseNs);
      else
        win = window;
    }
  }
}

// CH chains side by side (chain k's words at base + k, each chain's elements `stride` apart), element
// `index` of each: as look_back_chain (ReloadWindow, `win` words per chain, at most W), but every window's
// loads of all CH chains are issued before any is used, so the CH look-backs cost the round trips of one.
// sum[k] receives chain k's predecessors' sum.
template <int CH, int W, class C>
__device__ __forceinline__ void look_back_chains(const typename C::Word* base, size_t stride, int index,
                                                 int win, const C& c, typename C::Value (&sum)[CH]) {
  using T = typename C::Value;
  using Word = typename C::Word;
  int b[CH];
  bool done[CH];
#pragma unroll
  for (int k = 0; k < CH; ++k) sum[k] = T(0), b[k] = index - 1, done[k] = false;
  for (;;) {
    Word w[CH][W];
#pragma unroll
    for (int k = 0; k < CH; ++k)
#pragma unroll
      for (int u = 0; u < W; ++u)
        w[k][u] = done[k] || u >= win ? Word(0)
                  : b[k] - u >= 0     ? load(base + k + size_t(b[k] - u) * stride)
                                      : c.pack(kInclusive, T(0));  // before the chain's start: nothing to add
    bool all = true, blocked = false;
#pragma unroll
    for (int k = 0; k < CH; ++k) {
      if (done[k]) continue;
      int n = 0;
      bool found = false, blk = false;
#pragma unroll
      for (int u = 0; u < W; ++u) {
        if (found || blk || u >= win) continue;
        const unsigned f = c.flag(w[k][u]);
        if (f == 0) {
          blk = true;
          continue;
        }
        sum[k] += c.value(w[k][u]);
        ++n;
        found = f == kInclusive;
      }
      b[k] -= n;
      done[k] = found;
      all = all && found;
      blocked = blocked || blk;
    }
    if (all) return;
    if (blocked) __nanosleep(ReloadWindow::kPauseNs);
  }
}

// One element of a chain (one thread): publishes its aggregate, looks back (look_back_chain, ReloadWindow,
// min(window, W) words at a time), publishes its inclusive prefix; returns the predecessors' sum (0 for
// element 0, which publishes its inclusive prefix at once).
template <int W, class C>
__device__ __forceinline__ typename C::Value chain_step(typename C::Word* base, size_t stride, int index,
                                                        typename C::Value aggregate, int window, const C& c) {
  using T = typename C::Value;
  typename C::Word* own = base + size_t(index) * stride;
  T before = T(0);
  if (index > 0) {
    publish_aggregate(own, aggregate, c);
    before = look_back_chain<W>(base, stride, index, min(window, W), min(window, W), c);
  }
  publish_inclusive(own, T(before + aggregate), c);
  return before;
}

}  // namespace satlab::gpu::lookback
