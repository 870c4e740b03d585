// Single-pass scan with decoupled look-back: one launch, every element read once and written once.
// Each block takes the next tile id from an atomic counter (so every predecessor is already running),
// scans its tile (B threads x IPT items; three shapes are registered) with ShuffleBlockScan, publishes its aggregate (flag A), then warp 0 walks
// back over the predecessors 32 at a time, adding aggregates until it meets an inclusive prefix (flag
// P), and publishes its own inclusive prefix. Flag and value share one 64-bit word, written and read
// with single 8-byte accesses, so no reader sees a flag without its value (Merrill & Garland,
// "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
// Bytes: reads n, writes n (+ 8 bytes of status per 4096 elements).
#include "gpu/scan/device_scan.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"

namespace satlab::gpu::scan {
namespace {

constexpr unsigned long long kFlagA = 1, kFlagP = 2;  // 0: not yet published

template <typename T>
__device__ __forceinline__ unsigned to_bits(T v) {
  if constexpr (std::is_same_v<T, float>) return __float_as_uint(v);
  else return unsigned(v);
}
template <typename T>
__device__ __forceinline__ T from_bits(unsigned b) {
  if constexpr (std::is_same_v<T, float>) return __uint_as_float(b);
  else return T(b);
}
template <typename T>
__device__ __forceinline__ void publish(unsigned long long* status, unsigned long long flag, T v) {
  *reinterpret_cast<volatile unsigned long long*>(status) = (flag << 32) | to_bits(v);
}

// Warp 0 of tile `tile` (> 0): the sum of all elements before the tile.
template <typename T>
__device__ T look_back(const unsigned long long* status, long long tile) {
  const int lane = threadIdx.x & 31;
  T prefix = T(0);
  for (long long last = tile - 1;; last -= 32) {
    const long long idx = last - lane;  // lane 0 is the nearest predecessor
    unsigned long long w;
    for (unsigned delay = 32;; delay = delay < 512 ? 2 * delay : delay) {
      w = idx >= 0 ? *reinterpret_cast<const volatile unsigned long long*>(status + idx) : (kFlagP << 32);
      if (!__any_sync(0xffffffffu, (w >> 32) == 0)) break;
      __nanosleep(delay);  // back off: spinning warps would compete with the tiles' own loads in L2
    }
    const unsigned p = __ballot_sync(0xffffffffu, (w >> 32) == kFlagP);
    const int stop = p ? __ffs(p) - 1 : 31;  // nearest inclusive prefix ends the walk
    T v = lane <= stop ? from_bits<T>(unsigned(w)) : T(0);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = v + __shfl_xor_sync(0xffffffffu, v, off);
    prefix = prefix + v;
    if (p) return prefix;
  }
}

// Striped global loads of one tile into registers (element k*kBlock + threadIdx.x in items[k]).
template <typename T, int kBlock, int kItems>
__device__ __forceinline__ void load_striped(const T* __restrict__ in, int valid, T (&items)[kItems]) {
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kBlock + int(threadIdx.x);
    items[k] = i < valid ? in[i] : T(0);
  }
}

// kSpeculate: the tile id still comes from the atomic counter (the guarantee that every predecessor is
// already running), but the block loads tile blockIdx.x while the atomic is in flight; blocks are
// dispatched in order in practice, so the guess is almost always right, and when it is not the block
// loads the tile it was given. This takes the counter's round trip off every block's critical path.
template <typename T, int kBlock, int kItems, bool kSpeculate>
__global__ void __launch_bounds__(kBlock) kernel(const T* __restrict__ in, T* __restrict__ out, size_t n,
                                                 bool inclusive, unsigned long long* status, unsigned* counter) {
  constexpr int kTile = kBlock * kItems;
  using Exchange = TileExchange<T, kBlock, kItems>;
  using Scan = ShuffleBlockScan<T, kBlock, kItems>;
  __shared__ union {
    typename Exchange::TempStorage exchange;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ unsigned s_tile;
  __shared__ T s_prefix;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  T items[kItems];
  if constexpr (kSpeculate) {  // the guess: tile blockIdx.x
    const size_t first = size_t(blockIdx.x) * kTile;
    load_striped<T, kBlock, kItems>(in + first, int(n - first < size_t(kTile) ? n - first : kTile), items);
  }
  __syncthreads();
  const unsigned tile = s_tile;
  const size_t first = size_t(tile) * kTile;
  const int valid = int(n - first < size_t(kTile) ? n - first : kTile);
  if constexpr (kSpeculate) {
    if (tile != blockIdx.x) load_striped<T, kBlock, kItems>(in + first, valid, items);  // guessed wrong
    Exchange::blocked_from_striped(temp.exchange, items);
  } else {
    Exchange::load(temp.exchange, in + first, valid, items);
  }
  __syncthreads();
  T aggregate;
  Scan scan(temp.scan);
  if (inclusive) scan.InclusiveSum(items, aggregate);
  else scan.ExclusiveSum(items, aggregate);
  if (tile == 0) {
    if (threadIdx.x == 0) {
      publish(status, kFlagP, aggregate);
      s_prefix = T(0);
    }
  } else if (threadIdx.x < 32) {
    if (threadIdx.x == 0) publish(status + tile, kFlagA, aggregate);
    const T prefix = look_back<T>(status, tile);
    if (threadIdx.x == 0) {
      publish(status + tile, kFlagP, prefix + aggregate);
      s_prefix = prefix;
    }
  }
  __syncthreads();
  const T p = s_prefix;
#pragma unroll
  for (int k = 0; k < kItems; ++k) items[k] = items[k] + p;
  Exchange::store(temp.exchange, out + first, valid, items);
}

template <int kBlock, int kItems, bool kSpeculate = false>
struct Impl {
  static constexpr int kTile = kBlock * kItems;
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    const size_t tiles = (n + kTile - 1) / kTile;
    if (tiles > 0x7fffffffu) throw Error("lookback scan: n=" + std::to_string(n) + " needs more than 2^31 tiles");
    const std::string ctx = "n=" + std::to_string(n);
    const size_t bytes = tiles * sizeof(unsigned long long) + sizeof(unsigned);
    Scratch scratch(bytes, s);
    auto* status = scratch.as<unsigned long long>();
    auto* counter = reinterpret_cast<unsigned*>(status + tiles);
    SATLAB_CUDA(cudaMemsetAsync(status, 0, bytes, s), ctx);
    kernel<T, kBlock, kItems, kSpeculate><<<unsigned(tiles), kBlock, 0, s>>>(in, out, n, inclusive, status, counter);
    SATLAB_LAUNCHED("decoupled look-back scan", ctx);
  }
};

}  // namespace

Variant lookback_variant() {
  return make_scan_variant<Impl<256, 16>>("lookback", "single pass, decoupled look-back, 256x16 (ours)",
                                          "Merrill & Garland 2016");
}
Variant lookback_128x16_variant() {
  return make_scan_variant<Impl<128, 16>>("lookback_128x16", "single pass, decoupled look-back, 128x16 (ours)",
                                          "Merrill & Garland 2016");
}
Variant lookback_512x8_variant() {
  return make_scan_variant<Impl<512, 8>>("lookback_512x8", "single pass, decoupled look-back, 512x8 (ours)",
                                         "Merrill & Garland 2016");
}

Variant lookback_speculative_variant() {
  return make_scan_variant<Impl<256, 16, true>>(
      "lookback_speculative", "single pass, decoupled look-back, 256x16, tile loads overlap the tile counter (ours)",
      "Merrill & Garland 2016");
}
Variant lookback_speculative_128x24_variant() {
  return make_scan_variant<Impl<128, 24, true>>(
      "lookback_speculative_128x24",
      "single pass, decoupled look-back, 128x24, tile loads overlap the tile counter (ours)", "Merrill & Garland 2016");
}

}  // namespace satlab::gpu::scan
