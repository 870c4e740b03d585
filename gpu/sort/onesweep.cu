// One-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
// GPUs", 2022), 8-bit digits:
//   1. one histogram pass reads every key once and counts the digits of all passes at once; one small
//      kernel turns each pass's 256 counts into the digits' start positions;
//   2. per digit pass, one kernel: each block takes the next tile id from an atomic counter (so every
//      predecessor is already running), ranks its 4096 pairs by digit (gpu/sort/radix_tile.cuh), and
//      thread d publishes the tile's count of digit d, then looks back over the predecessors' words of
//      digit d (a chained scan per digit, the decoupled look-back of Merrill & Garland 2016) for how
//      many elements of digit d come before the tile; the pairs go to their final places of the pass.
// Status words: 32 bits, flag and value in one word (bit 31: inclusive prefix P, bit 30: tile count A,
// bits 0-29 the value, so n < 2^30), written and read whole, so no reader sees a flag without its
// value; cleared by a memset on the stream before every sort. A tile waits only on tiles with smaller
// ids, which were all started before it (they took their ids first) and publish their counts without
// waiting on anyone: forward progress needs nothing else of the scheduler.
// Bytes: 4 bytes a key for the histogram, then 16 bytes a pair per pass (read and write key and value),
// plus 4 KB of status per tile and pass.
#include "gpu/sort/onesweep.hpp"

#include <algorithm>
#include <vector>

#include "gpu/sort/radix_tile.cuh"
#include "gpu/sort/sort.hpp"

namespace satlab::gpu::sort {
namespace {

constexpr unsigned kFlagA = 1u << 30, kFlagP = 1u << 31, kValueMask = kFlagA - 1u, kMaxPasses = 4;
constexpr int kHistBlocksPerSm = 4;
using tile::kBlock;
using tile::kTile;

__global__ void __launch_bounds__(kBlock)
    digit_histograms(const uint32_t* __restrict__ keys, size_t n, int end_bit, unsigned* __restrict__ hist) {
  __shared__ unsigned s[kMaxPasses][kDigits];
  const int passes = passes_of(end_bit);
  for (int i = int(threadIdx.x); i < kMaxPasses * kDigits; i += kBlock) (&s[0][0])[i] = 0;
  __syncthreads();
  for (size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x; i < n; i += size_t(gridDim.x) * kBlock) {
    const uint32_t key = keys[i];
    for (int p = 0; p < passes; ++p)
      atomicAdd(&s[p][tile::digit_of(key, kDigitBits * p, digit_mask(p, end_bit))], 1u);
  }
  __syncthreads();
  for (int i = int(threadIdx.x); i < passes * kDigits; i += kBlock)
    if ((&s[0][0])[i]) atomicAdd(&hist[i], (&s[0][0])[i]);
}

// Block p: start[p][d] = sum of hist[p][d'] over d' < d.
__global__ void __launch_bounds__(kBlock)
    digit_starts(const unsigned* __restrict__ hist, unsigned* __restrict__ start) {
  __shared__ typename tile::DigitScan::TempStorage temp;
  unsigned x[1] = {hist[blockIdx.x * kDigits + threadIdx.x]}, all;
  tile::DigitScan(temp).ExclusiveSum(x, all);
  start[blockIdx.x * kDigits + threadIdx.x] = x[0];
}

// Thread d of tile `tile` (> 0): how many elements of digit d the tiles before it hold. Walks back from
// the nearest predecessor, adding counts (A) until an inclusive prefix (P); waits, backing off, on a
// word not yet published.
__device__ __forceinline__ unsigned look_back_digit(const unsigned* status_d, unsigned tile) {
  unsigned excl = 0;
  for (unsigned j = tile; j-- > 0;) {
    unsigned w = *reinterpret_cast<const volatile unsigned*>(status_d + size_t(j) * kDigits);
    for (unsigned delay = 32; !(w & (kFlagA | kFlagP)); delay = delay < 512 ? 2 * delay : delay) {
      __nanosleep(delay);
      w = *reinterpret_cast<const volatile unsigned*>(status_d + size_t(j) * kDigits);
    }
    excl += w & kValueMask;
    if (w & kFlagP) break;
  }
  return excl;
}

__global__ void __launch_bounds__(kBlock, tile::kMinBlocksPerSm)
    onesweep_pass(const uint32_t* __restrict__ keys_in, const uint32_t* __restrict__ values_in,
                  uint32_t* __restrict__ keys_out, uint32_t* __restrict__ values_out, size_t n, int shift,
                  unsigned mask, const unsigned* __restrict__ start, unsigned* status, unsigned* counter) {
  __shared__ tile::TempStorage t;
  __shared__ unsigned s_tile;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned id = s_tile;
  const size_t first = size_t(id) * kTile;
  const int valid = int(n - first < size_t(kTile) ? n - first : size_t(kTile));
  uint32_t keys[tile::kItems], values[tile::kItems];
  unsigned ranks[tile::kItems];
  tile::load(keys_in + first, valid, keys);
  tile::load(values_in + first, valid, values);
  const unsigned count = tile::rank(t, keys, valid, shift, mask, ranks);
  const int d = int(threadIdx.x);
  unsigned* word = status + size_t(id) * kDigits + d;
  unsigned before = 0;
  if (id == 0) {
    *reinterpret_cast<volatile unsigned*>(word) = kFlagP | count;
  } else {
    *reinterpret_cast<volatile unsigned*>(word) = kFlagA | count;
    before = look_back_digit(status + d, id);
    *reinterpret_cast<volatile unsigned*>(word) = kFlagP | (before + count);
  }
  t.base[d] = start[d] + before - t.digit_start[d];  // wraps around below zero, exact modulo 2^32
  __syncthreads();
  tile::scatter(t, keys, values, ranks, valid, shift, mask, keys_out, values_out);
}


// ---- Early-count tile (CUB's order of work): the tile's digit counts come from per-warp shared-memory
// histograms right after the load and are published before any ranking; the per-warp counters are then
// turned into each warp's first position per digit in the sorted tile, and ranking bumps them with one
// shared atomic per group of equal digits in a warp (match by 8 ballots or by __match_any_sync), so the
// rank is final without a second pass. The look-back reads kWindow predecessors' words at once.
constexpr unsigned kLanesAll = 0xffffffffu;

template <int kItems>
struct EarlyTemp {
  union {
    unsigned warp_offset[tile::kWarps][kDigits];  // histogram, then first position of (warp, digit)
    struct {
      uint32_t keys[kBlock * kItems], values[kBlock * kItems];
    } exchange;  // the tile in sorted order
  };
  unsigned base[kDigits];  // global position of the tile's digit d run, minus its start in the tile
  typename tile::DigitScan::TempStorage scan;
};

template <int kWindow>
__device__ __forceinline__ unsigned look_back_window(const unsigned* status_d, unsigned tile) {
  unsigned excl = 0;
  for (long long j = (long long)tile - 1;; j -= kWindow) {
    unsigned w[kWindow];
#pragma unroll
    for (int m = 0; m < kWindow; ++m)
      w[m] = j - m >= 0 ? *reinterpret_cast<const volatile unsigned*>(status_d + size_t(j - m) * kDigits) : kFlagP;
#pragma unroll
    for (int m = 0; m < kWindow; ++m) {
      for (unsigned delay = 32; !(w[m] & (kFlagA | kFlagP)); delay = delay < 512 ? 2 * delay : delay) {
        __nanosleep(delay);
        w[m] = *reinterpret_cast<const volatile unsigned*>(status_d + size_t(j - m) * kDigits);
      }
      excl += w[m] & kValueMask;
      if (w[m] & kFlagP) return excl;
    }
  }
}

template <int kItems, bool kBallotMatch, int kWindow>
__global__ void __launch_bounds__(kBlock, kItems <= 16 ? 3 : 2)
    onesweep_pass_early(const uint32_t* __restrict__ keys_in, const uint32_t* __restrict__ values_in,
                        uint32_t* __restrict__ keys_out, uint32_t* __restrict__ values_out, size_t n, int shift,
                        unsigned mask, const unsigned* __restrict__ start, unsigned* status, unsigned* counter) {
  constexpr int kTileN = kBlock * kItems, kWarpItems = 32 * kItems;
  __shared__ EarlyTemp<kItems> t;
  __shared__ unsigned s_tile;
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5, d = int(threadIdx.x);
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  for (int i = lane; i < kDigits; i += 32) t.warp_offset[warp][i] = 0;
  __syncthreads();
  const unsigned id = s_tile;
  const size_t first = size_t(id) * kTileN;
  const int valid = int(n - first < size_t(kTileN) ? n - first : size_t(kTileN));
  const int at = warp * kWarpItems + lane;  // item k: at + 32k (warp-striped, input order)
  uint32_t keys[kItems], values[kItems];
  unsigned ranks[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) keys[k] = at + 32 * k < valid ? keys_in[first + at + 32 * k] : 0u;
#pragma unroll
  for (int k = 0; k < kItems; ++k) values[k] = at + 32 * k < valid ? values_in[first + at + 32 * k] : 0u;
  // Early counts: per-warp histograms, summed per digit by thread d and published at once.
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (at + 32 * k < valid) atomicAdd(&t.warp_offset[warp][tile::digit_of(keys[k], shift, mask)], 1u);
  __syncthreads();
  unsigned count = 0;
#pragma unroll
  for (int w = 0; w < tile::kWarps; ++w) {  // per digit: exclusive over warps
    const unsigned c = t.warp_offset[w][d];
    t.warp_offset[w][d] = count;
    count += c;
  }
  unsigned* word = status + size_t(id) * kDigits + d;
  *reinterpret_cast<volatile unsigned*>(word) = (id == 0 ? kFlagP : kFlagA) | count;
  unsigned digit_start[1] = {count}, all;
  tile::DigitScan(t.scan).ExclusiveSum(digit_start, all);  // barriers inside
#pragma unroll
  for (int w = 0; w < tile::kWarps; ++w) t.warp_offset[w][d] += digit_start[0];
  __syncthreads();
  // Ranks: equal digits of a warp row form a group; its highest lane bumps the warp's counter.
  unsigned* offset = t.warp_offset[warp];
  const unsigned lanes_below = (1u << lane) - 1u;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const bool ok = at + 32 * k < valid;
    const unsigned dk = tile::digit_of(keys[k], shift, mask);
    unsigned peers = __ballot_sync(kLanesAll, ok);
    if constexpr (kBallotMatch) {
#pragma unroll
      for (int b = 0; b < kDigitBits; ++b) {
        const bool bit = (dk >> b) & 1u;
        const unsigned m = __ballot_sync(kLanesAll, bit);
        peers &= bit ? m : ~m;
      }
    } else {
      if (ok) peers = __match_any_sync(peers, dk);
    }
    if (!ok) peers = 0;
    const int leader = peers ? 31 - __clz(peers) : lane;
    unsigned before = 0;
    if (ok && lane == leader) before = atomicAdd(&offset[dk], __popc(peers));
    before = __shfl_sync(kLanesAll, before, leader);
    ranks[k] = before + __popc(peers & lanes_below);
  }
  unsigned prior = 0;
  if (id > 0) {
    prior = look_back_window<kWindow>(status + d, id);
    *reinterpret_cast<volatile unsigned*>(word) = kFlagP | (prior + count);
  }
  t.base[d] = start[d] + prior - digit_start[0];  // wraps around below zero, exact modulo 2^32
  __syncthreads();  // every warp's ranking done: the counters' memory becomes the exchange
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (at + 32 * k < valid) {
      t.exchange.keys[ranks[k]] = keys[k];
      t.exchange.values[ranks[k]] = values[k];
    }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int i = j * kBlock + int(threadIdx.x);
    if (i < valid) {
      const uint32_t key = t.exchange.keys[i];
      const unsigned pos = t.base[tile::digit_of(key, shift, mask)] + unsigned(i);
      keys_out[pos] = key;
      values_out[pos] = t.exchange.values[i];
    }
  }
}

// The kernel of the old structure (ranking first, then publishing), the tile of radix_tile.cuh.
struct Classic {
  static constexpr int kTileN = kTile;
  static void launch(unsigned grid, cudaStream_t s, const uint32_t* ki, const uint32_t* vi, uint32_t* ko,
                     uint32_t* vo, size_t n, int shift, unsigned mask, const unsigned* start, unsigned* status,
                     unsigned* counter) {
    onesweep_pass<<<grid, kBlock, 0, s>>>(ki, vi, ko, vo, n, shift, mask, start, status, counter);
  }
};
template <int kItems, bool kBallotMatch, int kWindow>
struct Early {
  static constexpr int kTileN = kBlock * kItems;
  static void launch(unsigned grid, cudaStream_t s, const uint32_t* ki, const uint32_t* vi, uint32_t* ko,
                     uint32_t* vo, size_t n, int shift, unsigned mask, const unsigned* start, unsigned* status,
                     unsigned* counter) {
    onesweep_pass_early<kItems, kBallotMatch, kWindow>
        <<<grid, kBlock, 0, s>>>(ki, vi, ko, vo, n, shift, mask, start, status, counter);
  }
};
using Default = Early<16, true, 8>;

size_t tiles_of(size_t n, size_t tile_n = kTile) {
  return (n + tile_n - 1) / tile_n;
}

// Temp layout, in uint32 words: alternate keys [n], alternate values [n], starts [4 x 256], then the
// part cleared before every sort: histograms [4 x 256], tile counters [32], status [passes x tiles x 256].
struct Layout {
  size_t n, tiles;
  int passes;
  size_t words_alt() const { return passes > 1 ? 2 * n : 0; }
  size_t at_start() const { return words_alt(); }
  size_t at_hist() const { return at_start() + kMaxPasses * kDigits; }
  size_t at_counters() const { return at_hist() + kMaxPasses * kDigits; }
  size_t at_status() const { return at_counters() + 32; }
  size_t words() const { return at_status() + size_t(passes) * tiles * kDigits; }
};

void check_args(size_t n, int end_bit) {
  if (n >= (size_t(1) << 30)) throw Error("onesweep sort: n=" + std::to_string(n) + " >= 2^30");
  if (end_bit < 0 || end_bit > 32)
    throw Error("onesweep sort: end_bit " + std::to_string(end_bit) + " outside 0..32");
}

template <typename Pass>
size_t temp_bytes_of(size_t n, int end_bit) {
  check_args(n, end_bit);
  return Layout{n, tiles_of(n, Pass::kTileN), passes_of(end_bit)}.words() * sizeof(uint32_t);
}

template <typename Pass>
void sort_pairs(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out, uint32_t* values_out,
                size_t n, void* temp, cudaStream_t s, int end_bit) {
  check_args(n, end_bit);
  const std::string ctx = "onesweep sort n=" + std::to_string(n) + " end_bit=" + std::to_string(end_bit);
  if (n == 0) return;
  const Layout l{n, tiles_of(n, Pass::kTileN), passes_of(end_bit)};
  if (l.passes == 0) {
    SATLAB_CUDA(cudaMemcpyAsync(keys_out, keys_in, n * 4, cudaMemcpyDeviceToDevice, s), ctx);
    SATLAB_CUDA(cudaMemcpyAsync(values_out, values_in, n * 4, cudaMemcpyDeviceToDevice, s), ctx);
    return;
  }
  auto* w = static_cast<uint32_t*>(temp);
  uint32_t *alt_keys = w, *alt_values = w + n;
  unsigned *start = w + l.at_start(), *hist = w + l.at_hist(), *counters = w + l.at_counters(),
           *status = w + l.at_status();
  SATLAB_CUDA(cudaMemsetAsync(hist, 0, (l.words() - l.at_hist()) * sizeof(uint32_t), s), ctx);
  static const int sms = [] {
    int device = 0, count = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    return count > 0 ? count : 1;
  }();
  const unsigned hist_grid =
      unsigned(std::min<size_t>(tiles_of(n), size_t(sms) * kHistBlocksPerSm));
  digit_histograms<<<hist_grid, kBlock, 0, s>>>(keys_in, n, end_bit, hist);
  SATLAB_LAUNCHED("onesweep digit_histograms", ctx);
  digit_starts<<<unsigned(l.passes), kBlock, 0, s>>>(hist, start);
  SATLAB_LAUNCHED("onesweep digit_starts", ctx);
  const uint32_t *src_keys = keys_in, *src_values = values_in;
  for (int p = 0; p < l.passes; ++p) {
    const bool to_out = pass_writes_output(p, l.passes);
    uint32_t* dst_keys = to_out ? keys_out : alt_keys;
    uint32_t* dst_values = to_out ? values_out : alt_values;
    Pass::launch(unsigned(l.tiles), s, src_keys, src_values, dst_keys, dst_values, n, kDigitBits * p,
                 digit_mask(p, end_bit), start + p * kDigits, status + size_t(p) * l.tiles * kDigits,
                 counters + p);
    SATLAB_LAUNCHED("onesweep pass " + std::to_string(p), ctx);
    src_keys = dst_keys, src_values = dst_values;
  }
}

}  // namespace

size_t onesweep_temp_bytes(size_t n, int end_bit) {
  return temp_bytes_of<Default>(n, end_bit);
}

void onesweep_sort_pairs(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out,
                         uint32_t* values_out, size_t n, void* temp, cudaStream_t s, int end_bit) {
  sort_pairs<Default>(keys_in, values_in, keys_out, values_out, n, temp, s, end_bit);
}

namespace {
template <typename Pass>
struct Impl {
  static size_t temp_bytes(size_t n) { return temp_bytes_of<Pass>(n, 32); }
  static void run(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out,
                  uint32_t* values_out, size_t n, void* temp, cudaStream_t s) {
    sort_pairs<Pass>(keys_in, values_in, keys_out, values_out, n, temp, s, 32);
  }
};
constexpr size_t kMaxN = (size_t(1) << 30) - 1;
}  // namespace

Variant onesweep_variant() {
  return make_sort_variant<Impl<Default>>(
      "radix_onesweep", "one sweep: digit counts published before ranking, windowed look-back (ours)",
      "Adinets & Merrill 2022", kMaxN);
}

// Tuning candidates (temporary; the losers are removed once their numbers are in docs/performance.md).
std::vector<Variant> onesweep_candidates() {
  return {
      make_sort_variant<Impl<Classic>>("radix_onesweep_classic", "one sweep, rank then publish, 256x16",
                                       "Adinets & Merrill 2022", kMaxN),
      make_sort_variant<Impl<Early<16, true, 1>>>("radix_onesweep_e16b_w1", "early counts 256x16 ballot w1",
                                                  "Adinets & Merrill 2022", kMaxN),
      make_sort_variant<Impl<Early<16, false, 8>>>("radix_onesweep_e16m_w8", "early counts 256x16 match_any w8",
                                                   "Adinets & Merrill 2022", kMaxN),
      make_sort_variant<Impl<Early<20, true, 8>>>("radix_onesweep_e20b_w8", "early counts 256x20 ballot w8",
                                                  "Adinets & Merrill 2022", kMaxN),
  };
}

}  // namespace satlab::gpu::sort
