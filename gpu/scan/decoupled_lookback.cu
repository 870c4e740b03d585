// Single-pass scan with decoupled look-back: one launch, every element read once and written once.
// Each block takes the next tile id from an atomic counter (so every predecessor is already running),
// scans its tile (B threads x IPT items; three shapes are registered) with ShuffleBlockScan, publishes its aggregate (flag A), then warp 0 walks
// back over the predecessors 32 at a time, adding aggregates until it meets an inclusive prefix (flag
// P), and publishes its own inclusive prefix (lookback::tile_prefix of gpu/common/lookback.cuh; Merrill &
// Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
// Bytes: reads n, writes n (+ 8 bytes of status per 4096 elements).
#include "gpu/common/lookback.cuh"
#include "gpu/scan/device_scan.cuh"
#include "gpu/scan/first_poll.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"

namespace satlab::gpu::scan {
namespace {

using gpu::lookback::tile_prefix;
using gpu::lookback::Word64;

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
                                                 bool inclusive, unsigned long long* status, unsigned* counter,
                                                 unsigned first_poll_ns) {
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
  if (threadIdx.x < 32) {
    const T prefix = tile_prefix(status, tile, aggregate, Word64<T>{}, first_poll_ns);
    if (threadIdx.x == 0) s_prefix = prefix;
  }
  __syncthreads();
  const T p = s_prefix;
#pragma unroll
  for (int k = 0; k < kItems; ++k) items[k] = items[k] + p;
  Exchange::store(temp.exchange, out + first, valid, items);
}

// kFirstPollNs: lookback::first_poll_ns's tuned pause (0: none; measured only for the speculative shapes).
template <int kBlock, int kItems, bool kSpeculate = false, unsigned kFirstPollNs = 0>
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
    auto* k = kernel<T, kBlock, kItems, kSpeculate>;
    static const size_t resident = [k] {  // blocks resident at once on this device (per instance)
      int device = 0, sms = 0, per_sm = 0;
      cudaGetDevice(&device);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kBlock, 0);
      return size_t(std::max(1, sms * per_sm));
    }();
    k<<<unsigned(tiles), kBlock, 0, s>>>(in, out, n, inclusive, status, counter,
                                        lookback::first_poll_ns(tiles, resident, kFirstPollNs));
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
  return make_scan_variant<Impl<256, 16, true, 2000>>(
      "lookback_speculative", "single pass, decoupled look-back, 256x16, tile loads overlap the tile counter (ours)",
      "Merrill & Garland 2016");
}
Variant lookback_speculative_128x24_variant() {
  return make_scan_variant<Impl<128, 24, true, 2000>>(
      "lookback_speculative_128x24",
      "single pass, decoupled look-back, 128x24, tile loads overlap the tile counter (ours)", "Merrill & Garland 2016");
}

}  // namespace satlab::gpu::scan
