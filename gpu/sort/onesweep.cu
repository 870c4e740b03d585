// One-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
// GPUs", 2022), 8-bit digits:
//   1. one histogram pass reads every key once and counts the digits of all passes at once; one small
//      kernel turns each pass's 256 counts into the digits' start positions;
//   2. per digit pass, one kernel: each block takes the next tile id from an atomic counter (so every
//      predecessor is already running) and loads its tile of pairs (256 threads x kItems, warp-striped). The
//      tile's digit counts come first, from per-warp shared-memory histograms, and thread d publishes
//      the count of digit d before any ranking (CUB's order: successors find it sooner). The per-warp
//      counters become each warp's first position of each digit in the sorted tile; ranking then walks
//      each warp's items in order, groups equal digits of a row by 8 ballots (CUB's note: faster than
//      __match_any_sync for 8 bits; measured so here too) and bumps the warp's counter once per group
//      with a shared atomicAdd, which gives every item its final rank in one loop. Thread d then looks
//      back over the predecessors' words of digit d, 8 words at a time (a chained scan per digit, the
//      decoupled look-back of Merrill & Garland 2016), for how many elements of digit d come before
//      the tile; the pairs go through shared memory to their final places of the pass.
// Status words: lookback::Word32 of gpu/common/lookback.cuh, 32 bits with flag and value in one word (bit
// 31: inclusive prefix P, bit 30: tile count A, bits 0-29 the value, so n < 2^30), written and read whole,
// so no reader sees a flag without its value; cleared by a memset on the stream before every sort; the
// look-back is its look_back_chain, SpinOnWord. A tile waits only on tiles with smaller
// ids, which were all started before it (they took their ids first) and publish their counts without
// waiting on anyone: forward progress needs nothing else of the scheduler.
// Shapes: 256 threads x kItems pairs a tile, built for kMinBlocks blocks an SM (radix_onesweep and the
// device-level sort: 16 x 3; the registry's _32x2 row: 8192-pair tiles, fewer of them), shared
// memory dynamic.
// Bytes: 4 bytes a key for the histogram, then 16 bytes a pair per pass (read and write key and value),
// plus 1 KB of status (256 words) per tile and pass.
#include "gpu/sort/onesweep.hpp"

#include <algorithm>
#include <cstdint>

#include "gpu/common/lookback.cuh"
#include "gpu/common/warp.cuh"
#include "gpu/sort/radix_tile.cuh"
#include "gpu/sort/sort.hpp"

namespace satlab::gpu::sort {
namespace {

constexpr unsigned kMaxPasses = 4;
constexpr int kLookBackWindow = 8;  // predecessors' words a thread reads at once
constexpr int kHistBlocksPerSm = 8;
using tile::kBlock;

// Each thread reads 4 x 16 bytes (16 keys) per step, all loads first, so that enough bytes are in flight
// to run at memory speed (one 4-byte key per step ran at ~0.9 TB/s); keys before a 16-byte boundary and
// after the last whole step one at a time.
__device__ __forceinline__ void count_key(unsigned (&s)[kMaxPasses][kDigits], uint32_t key, int passes,
                                          int end_bit) {
  for (int p = 0; p < passes; ++p)
    atomicAdd(&s[p][tile::digit_of(key, kDigitBits * p, digit_mask(p, end_bit))], 1u);
}

__global__ void __launch_bounds__(kBlock)
    digit_histograms(const uint32_t* __restrict__ keys, size_t n, int end_bit, unsigned* __restrict__ hist) {
  constexpr int kLoads = 4;
  __shared__ unsigned s[kMaxPasses][kDigits];
  const int passes = passes_of(end_bit);
  for (int i = int(threadIdx.x); i < kMaxPasses * kDigits; i += kBlock) (&s[0][0])[i] = 0;
  __syncthreads();
  const size_t head = std::min<size_t>(n, (16 - reinterpret_cast<uintptr_t>(keys) % 16) % 16 / 4);
  const size_t quads = (n - head) / 4, thread = size_t(blockIdx.x) * kBlock + threadIdx.x,
               threads = size_t(gridDim.x) * kBlock;
  const uint4* q = reinterpret_cast<const uint4*>(keys + head);
  size_t j = thread;
  for (; j + (kLoads - 1) * threads < quads; j += kLoads * threads) {
    uint4 v[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) v[u] = q[j + u * threads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      count_key(s, v[u].x, passes, end_bit);
      count_key(s, v[u].y, passes, end_bit);
      count_key(s, v[u].z, passes, end_bit);
      count_key(s, v[u].w, passes, end_bit);
    }
  }
  for (; j < quads; j += threads) {
    const uint4 v = q[j];
    count_key(s, v.x, passes, end_bit);
    count_key(s, v.y, passes, end_bit);
    count_key(s, v.z, passes, end_bit);
    count_key(s, v.w, passes, end_bit);
  }
  if (thread < head) count_key(s, keys[thread], passes, end_bit);
  if (thread < n - head - 4 * quads) count_key(s, keys[head + 4 * quads + thread], passes, end_bit);
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

constexpr unsigned kLanesAll = 0xffffffffu;

// A pass's tile: kBlock threads x kItems pairs. Its shared memory is dynamic (tiles of more than 4096
// pairs need more than the 48 KB of static shared memory).
template <int kItems>
struct TileTemp {
  static constexpr int kSize = kBlock * kItems, kWarpItems = 32 * kItems;
  union {
    unsigned warp_offset[tile::kWarps][kDigits];  // histogram, then first position of (warp, digit)
    struct {
      uint32_t keys[kSize], values[kSize];
    } exchange;  // the tile in sorted order
  };
  unsigned base[kDigits];  // global position of the tile's digit d run, minus its start in the tile
  typename tile::DigitScan::TempStorage scan;
  unsigned tile_id;
};

template <int kItems, int kMinBlocks>
__global__ void __launch_bounds__(kBlock, kMinBlocks)
    onesweep_pass(const uint32_t* __restrict__ keys_in, const uint32_t* __restrict__ values_in,
                  uint32_t* __restrict__ keys_out, uint32_t* __restrict__ values_out, size_t n, int shift,
                  unsigned mask, const unsigned* __restrict__ start, unsigned* status, unsigned* counter) {
  using Temp = TileTemp<kItems>;
  constexpr int kTileSize = Temp::kSize;
  extern __shared__ __align__(16) unsigned char smem[];
  Temp& t = *reinterpret_cast<Temp*>(smem);
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5, d = int(threadIdx.x);
  if (threadIdx.x == 0) t.tile_id = atomicAdd(counter, 1u);
  for (int i = lane; i < kDigits; i += 32) t.warp_offset[warp][i] = 0;
  __syncthreads();
  const unsigned id = t.tile_id;
  const size_t first = size_t(id) * kTileSize;
  const int valid = int(n - first < size_t(kTileSize) ? n - first : size_t(kTileSize));
  const int at = warp * Temp::kWarpItems + lane;  // item k: at + 32k (warp-striped, input order)
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
  const lookback::Word32 codec;
  unsigned* word = status + size_t(id) * kDigits + d;
  lookback::publish(word, id == 0 ? lookback::kInclusive : lookback::kAggregate, count, codec);
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
#pragma unroll
    for (int b = 0; b < kDigitBits; ++b) {
      const bool bit = (dk >> b) & 1u;
      const unsigned m = __ballot_sync(kLanesAll, bit);
      peers &= bit ? m : ~m;
    }
    if (!ok) peers = 0;
    const int leader = peers ? 31 - __clz(peers) : lane;
    unsigned before = 0;
    if (ok && lane == leader) before = atomicAdd(&offset[dk], __popc(peers));
    before = warp::broadcast(before, leader);
    ranks[k] = before + __popc(peers & lanes_below);
  }
  unsigned prior = 0;
  if (id > 0) {
    // Thread d: how many elements of digit d the tiles before this one hold, from the predecessors' words
    // of digit d (a chain kDigits words apart), kLookBackWindow at a time.
    prior = lookback::look_back_chain<kLookBackWindow, lookback::SpinOnWord>(
        status + d, kDigits, (long long)id, kLookBackWindow, kLookBackWindow, codec);
    lookback::publish_inclusive(word, prior + count, codec);
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

// A pass's shape: pairs a thread (a tile is 256 x kItems pairs) and blocks an SM it is built for.
template <int kItems, int kMinBlocks>
struct Shape {
  static constexpr int kTileSize = kBlock * kItems;
  static size_t tiles(size_t n) { return (n + kTileSize - 1) / kTileSize; }
};
// The public sort's (and the registry's radix_onesweep): 16 pairs a thread, 3 blocks an SM.
using DefaultShape = Shape<tile::kItems, tile::kMinBlocksPerSm>;

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

template <typename S>
size_t temp_bytes_of(size_t n, int end_bit) {
  check_args(n, end_bit);
  return Layout{n, S::tiles(n), passes_of(end_bit)}.words() * sizeof(uint32_t);
}

template <int kItems, int kMinBlocks>
void sort_pairs(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out, uint32_t* values_out,
                size_t n, void* temp, cudaStream_t s, int end_bit) {
  using S = Shape<kItems, kMinBlocks>;
  check_args(n, end_bit);
  const std::string ctx = "onesweep sort n=" + std::to_string(n) + " end_bit=" + std::to_string(end_bit);
  if (n == 0) return;
  const Layout l{n, S::tiles(n), passes_of(end_bit)};
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
  auto* pass = onesweep_pass<kItems, kMinBlocks>;
  constexpr size_t kSmem = sizeof(TileTemp<kItems>);
  static const bool sized = [&] {  // once per shape: shared memory past 48 KB is opted into
    SATLAB_CUDA(cudaFuncSetAttribute(pass, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem)), ctx);
    return true;
  }();
  (void)sized;
  // The histogram's grid by 4096-key chunks whatever the pass's tiles, so that every shape counts alike.
  const unsigned hist_grid = unsigned(std::min<size_t>(DefaultShape::tiles(n), size_t(sms) * kHistBlocksPerSm));
  digit_histograms<<<hist_grid, kBlock, 0, s>>>(keys_in, n, end_bit, hist);
  SATLAB_LAUNCHED("onesweep digit_histograms", ctx);
  digit_starts<<<unsigned(l.passes), kBlock, 0, s>>>(hist, start);
  SATLAB_LAUNCHED("onesweep digit_starts", ctx);
  const uint32_t *src_keys = keys_in, *src_values = values_in;
  for (int p = 0; p < l.passes; ++p) {
    const bool to_out = pass_writes_output(p, l.passes);
    uint32_t* dst_keys = to_out ? keys_out : alt_keys;
    uint32_t* dst_values = to_out ? values_out : alt_values;
    pass<<<unsigned(l.tiles), kBlock, kSmem, s>>>(src_keys, src_values, dst_keys, dst_values, n, kDigitBits * p,
                                                  digit_mask(p, end_bit), start + p * kDigits,
                                                  status + size_t(p) * l.tiles * kDigits, counters + p);
    SATLAB_LAUNCHED("onesweep pass " + std::to_string(p), ctx);
    src_keys = dst_keys, src_values = dst_values;
  }
}

}  // namespace

size_t onesweep_temp_bytes(size_t n, int end_bit) { return temp_bytes_of<DefaultShape>(n, end_bit); }

void onesweep_sort_pairs(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out,
                         uint32_t* values_out, size_t n, void* temp, cudaStream_t s, int end_bit) {
  sort_pairs<tile::kItems, tile::kMinBlocksPerSm>(keys_in, values_in, keys_out, values_out, n, temp, s, end_bit);
}

namespace {
template <int kItems, int kMinBlocks>
struct Impl {
  using S = Shape<kItems, kMinBlocks>;
  static size_t temp_bytes(size_t n) { return temp_bytes_of<S>(n, 32); }
  static void run(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out,
                  uint32_t* values_out, size_t n, void* temp, cudaStream_t s) {
    sort_pairs<kItems, kMinBlocks>(keys_in, values_in, keys_out, values_out, n, temp, s, 32);
  }
};
}  // namespace

Variant onesweep_variant() {
  return make_sort_variant<Impl<tile::kItems, tile::kMinBlocksPerSm>>(
      "radix_onesweep", "one sweep: digit counts published before ranking, windowed look-back (ours)",
      "Adinets & Merrill 2022", (size_t(1) << 30) - 1);
}

// Larger tiles (CUB's SM90 tuning for 4-byte pairs: 384 threads x ~18-21 items): fewer tiles, so less of
// each tile's fixed work (counter clears, the digit scan and its barriers, the look-back, 1 KB of status)
// a pair, at 2 blocks an SM. H100, 2^24 pairs: 0.688 ms against radix_onesweep's 0.784 and CUB's 0.616;
// slower below 2^21 (2^16: 0.074 against 0.057 ms). 256 x 24 (6144 pairs) lay between: 0.714 ms.
Variant onesweep_32_variant() {
  return make_sort_variant<Impl<32, 2>>("radix_onesweep_32x2",
                                        "one sweep, 8192-pair tiles (256 x 32), 2 blocks an SM (ours)",
                                        "Adinets & Merrill 2022", (size_t(1) << 30) - 1);
}

}  // namespace satlab::gpu::sort
