// Single-pass decoupled look-back scan, persistent and software-pipelined. A cooperative launch of as many
// blocks as fit on the device at once (so every block is resident: the launch fails rather than hang);
// block b scans tiles b, b + G, b + 2G, ... and, while its current tile is scanned and waits on its
// look-back, already has the next tile's loads in flight (two register buffers, so the memory system
// never waits on the look-back chain). Tiles are warp-striped (gpu/scan/striped_tile.cuh: coalesced
// 16-byte loads and streaming stores, no shared-memory transpose, chunk totals scanned with shuffles). Two
// barriers per tile (warp totals; tile prefix). The tile status and the
// look-back are gpu/common/lookback.cuh's (Merrill & Garland 2016). Tiles go round-robin, not from an atomic
// counter: with a counter, a tile a block holds as its prefetch publishes nothing until the block's
// current tile is done, and its successors wait on it (measured: the blocks serialise, ~1 us per tile);
// round-robin, every predecessor of a tile is some block's current tile of the same or an earlier round.
// Bytes: reads n, writes n (+ 8 bytes of status per tile).
#include "gpu/common/lookback.cuh"
#include "gpu/common/warp.cuh"
#include "gpu/scan/block_scan.cuh"
#include "gpu/scan/first_poll.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"
#include "gpu/scan/striped_tile.cuh"

namespace satlab::gpu::scan {
namespace {

template <typename T, int kBlock, int kVec>
struct Pipeline {
  using Tl = StripedTile<T, kBlock, kVec>;
  const T* in;
  T* out;
  size_t n;
  unsigned tiles;
  bool inclusive, vec;
  unsigned long long* status;
  T* s_warp;
  T* s_prefix;
  unsigned first_poll_ns;

  __device__ int valid(unsigned tile) const {
    const size_t first = size_t(tile) * Tl::kSize;
    return int(n - first < size_t(Tl::kSize) ? n - first : Tl::kSize);
  }

  // Scans and stores `cur` (tile `tile`, already loaded) while `nxt` loads the block's next tile; advances.
  __device__ void step(typename Tl::Items& cur, typename Tl::Items& nxt, unsigned& tile) const {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned next = tile + gridDim.x;
    if (next < tiles) Tl::load(in + size_t(next) * Tl::kSize, valid(next), vec, nxt);
    T off[kVec], warp_prefix;
    const T aggregate = Tl::offsets(cur, off, warp_prefix, s_warp);
    if (warp == 0) {
      const T prefix = gpu::lookback::tile_prefix(status, tile, aggregate, typename Tl::Word{}, first_poll_ns);
      if (lane == 0) *s_prefix = prefix;
    }
    __syncthreads();
    const T base = *s_prefix + warp_prefix;
#pragma unroll
    for (int j = 0; j < kVec; ++j) thread_scan(cur[j], base + off[j], inclusive);
    Tl::store(out + size_t(tile) * Tl::kSize, valid(tile), vec, cur);
    tile = next;
  }
};

template <typename T, int kBlock, int kVec, int kMinBlocks>
__global__ void __launch_bounds__(kBlock, kMinBlocks)
    kernel(const T* __restrict__ in, T* __restrict__ out, size_t n, unsigned tiles, bool inclusive, bool vec,
           unsigned long long* status, unsigned first_poll_ns) {
  using P = Pipeline<T, kBlock, kVec>;
  __shared__ T s_warp[P::Tl::kWarps];
  __shared__ T s_prefix;
  unsigned tile = blockIdx.x;
  const P p{in, out, n, tiles, inclusive, vec, status, s_warp, &s_prefix, first_poll_ns};
  typename P::Tl::Items a, b;
  if (tile < tiles) P::Tl::load(in + size_t(tile) * P::Tl::kSize, p.valid(tile), vec, a);
  while (tile < tiles) {
    p.step(a, b, tile);
    if (tile >= tiles) break;
    p.step(b, a, tile);
  }
}

template <int kBlock, int kVec, int kMinBlocks>
struct Impl {
  static constexpr size_t kTile = size_t(kBlock) * 4 * kVec;
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    const size_t tiles = (n + kTile - 1) / kTile;
    const std::string ctx = "n=" + std::to_string(n);
    if (tiles > 0x7fffffffu) throw Error("pipelined look-back scan: " + ctx + " needs more than 2^31 tiles");
    auto* k = kernel<T, kBlock, kVec, kMinBlocks>;
    int device = 0, sms = 0, per_sm = 0;
    SATLAB_CUDA(cudaGetDevice(&device), ctx);
    SATLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), ctx);
    SATLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kBlock, 0), ctx);
    if (per_sm < 1)
      throw Error("pipelined look-back scan: no block of " + std::to_string(kBlock) + " threads fits");
    const unsigned grid = unsigned(std::min<size_t>(tiles, size_t(sms) * per_sm));
    const size_t bytes = tiles * sizeof(unsigned long long);
    Scratch scratch(bytes, s);
    auto* status = scratch.as<unsigned long long>();
    SATLAB_CUDA(cudaMemsetAsync(status, 0, bytes, s), ctx);
    bool vec = (reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 16 == 0;
    unsigned tiles32 = unsigned(tiles);
    unsigned first_poll = lookback::first_poll_ns(tiles, grid, 3000);
    void* args[] = {&in, &out, &n, &tiles32, &inclusive, &vec, &status, &first_poll};
    SATLAB_CUDA(
        cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(k), dim3(grid), dim3(kBlock), args, 0, s),
        ctx + " grid=" + std::to_string(grid));
    SATLAB_LAUNCHED("pipelined look-back scan", ctx + " grid=" + std::to_string(grid));
  }
};

}  // namespace

Variant lookback_pipelined_variant() {
  return make_scan_variant<Impl<128, 8, 4>>("lookback_pipelined",
                                            "single pass, decoupled look-back, persistent 128x32 blocks, "
                                            "next tile loaded during the look-back (ours)",
                                            "Merrill & Garland 2016");
}

}  // namespace satlab::gpu::scan
