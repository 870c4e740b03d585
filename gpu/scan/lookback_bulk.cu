// Single-pass decoupled look-back scan fed by Hopper's copy engine (sm_90). lookback_pipelined keeps one
// tile in flight per block in registers (two buffers of 32 values a thread); here the tiles stream through
// a ring of kStages shared-memory stages: one thread hands each tile (64 KB) to a bulk asynchronous copy
// (cp.async.bulk, tracked by an mbarrier's transaction count), kStages - 1 tiles ahead of the one being
// scanned, and writes each scanned tile back with a bulk store from the same stage. Loads in flight cost no
// registers, so a block keeps 128 KB in flight where lookback_pipelined keeps 8 KB (512 threads, 64 KB
// tiles, 3 stages, one block an SM; 128x8 tiles in 4 stages and 256x8 in 3 lost: docs/performance.md).
// The scan itself is lookback_pipelined's: tiles warp-striped (gpu/scan/striped_tile.cuh: conflict-free
// shared-memory reads and writes, chunk totals scanned across lanes with shuffles), the tile's prefix from
// gpu/common/lookback.cuh's look-back (Merrill & Garland 2016). Persistent
// (a cooperative launch: every block resident), tiles round-robin (block b takes b, b + G, ...), so every
// predecessor of a tile is some block's current tile of the same or an earlier round.
// The copies need 16-byte alignment at both ends: the last tile when partial, and every tile of an
// unaligned input or output, are loaded and stored by the threads directly. Bytes: reads n, writes n
// (+ 8 bytes of status per tile). Sources: the CUDA programming guide's "Asynchronous Data Copies using the
// Tensor Memory Accelerator", CUTLASS's SM90 TMA pipelines (the mbarrier protocol), Merrill & Garland 2016.
#include "gpu/common/bulk.cuh"
#include "gpu/common/lookback.cuh"
#include "gpu/common/warp.cuh"
#include "gpu/scan/block_scan.cuh"
#include "gpu/scan/first_poll.cuh"
#include "gpu/scan/scan.hpp"
#include "gpu/scan/scan_common.cuh"
#include "gpu/scan/striped_tile.cuh"

namespace satlab::gpu::scan {
namespace {

template <typename T, int kBlock, int kVec, int kStages>
struct Ring : StripedTile<T, kBlock, kVec> {
  static constexpr unsigned kBytes = unsigned(StripedTile<T, kBlock, kVec>::kSize * sizeof(T));
  static constexpr size_t kSmem = size_t(kStages) * kBytes;
};

template <typename T, int kBlock, int kVec, int kStages>
__global__ void __launch_bounds__(kBlock)
    kernel(const T* __restrict__ in, T* __restrict__ out, size_t n, unsigned tiles, bool inclusive, bool aligned,
           unsigned long long* status, unsigned first_poll_ns) {
  using R = Ring<T, kBlock, kVec, kStages>;
  extern __shared__ __align__(128) unsigned char smem[];
  T* const ring = reinterpret_cast<T*>(smem);
  __shared__ uint64_t bar[kStages];
  __shared__ T s_warp[R::kWarps];
  __shared__ T s_prefix;
  const unsigned grid = gridDim.x;
  const unsigned mine = tiles > blockIdx.x ? (tiles - blockIdx.x + grid - 1) / grid : 0;  // local tiles
  const auto tile_of = [&](unsigned k) { return blockIdx.x + k * grid; };
  const auto valid = [&](unsigned t) {
    const size_t first = size_t(t) * R::kSize;
    return int(n - first < size_t(R::kSize) ? n - first : R::kSize);
  };
  const auto by_copy = [&](unsigned t) { return aligned && valid(t) == R::kSize; };
  const auto issue = [&](unsigned k) {  // one thread: local tile k into its stage
    const unsigned t = tile_of(k);
    if (!by_copy(t)) return;
    uint64_t* b = &bar[k % kStages];
    bulk::arrive_expect_tx(b, R::kBytes);
    bulk::load(ring + size_t(k % kStages) * R::kSize, in + size_t(t) * R::kSize, R::kBytes, b);
  };
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < kStages; ++s) bulk::init(&bar[s], 1);
    bulk::fence_init();
    for (unsigned k = 0; k < unsigned(kStages - 1) && k < mine; ++k) issue(k);
  }
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (unsigned k = 0; k < mine; ++k) {
    const unsigned t = tile_of(k);
    const bool copy = by_copy(t);
    T* const buf = ring + size_t(k % kStages) * R::kSize;
    typename R::Items x;
    if (copy) {
      bulk::wait(&bar[k % kStages], (k / kStages) & 1);
      R::read_shared(buf, x);
    } else {
      R::load(in + size_t(t) * R::kSize, valid(t), false, x);
    }
    T off[kVec], warp_prefix;
    const T aggregate = R::offsets(x, off, warp_prefix, s_warp);
    if (warp == 0) {
      const T prefix = gpu::lookback::tile_prefix(status, t, aggregate, typename R::Word{}, first_poll_ns);
      if (lane == 0) s_prefix = prefix;
    }
    __syncthreads();
    const T base = s_prefix + warp_prefix;
#pragma unroll
    for (int j = 0; j < kVec; ++j) thread_scan(x[j], base + off[j], inclusive);
    if (copy) {
      R::write_shared(buf, x);
      bulk::fence_proxy_async();  // the stage's new contents visible to the bulk store
    } else {
      R::store(out + size_t(t) * R::kSize, valid(t), false, x);
    }
    __syncthreads();  // the stage written (and s_prefix, s_warp read) by every thread
    if (threadIdx.x == 0) {
      if (copy) {
        bulk::store(out + size_t(t) * R::kSize, buf, R::kBytes);
        bulk::commit();
      }
      if (k + kStages - 1 < mine) {
        bulk::wait_read<1>();  // the previous tile's store has read its stage, the one refilled now
        issue(k + kStages - 1);
      }
    }
  }
  if (threadIdx.x == 0) bulk::wait_read<0>();  // the block's shared memory is read before it is released
}

template <int kBlock, int kVec, int kStages>
struct Impl {
  template <typename T>
  static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s) {
    using R = Ring<T, kBlock, kVec, kStages>;
    const size_t tiles = (n + R::kSize - 1) / R::kSize;
    const std::string ctx = "n=" + std::to_string(n);
    if (tiles > 0x7fffffffu) throw Error("bulk look-back scan: " + ctx + " needs more than 2^31 tiles");
    auto* k = kernel<T, kBlock, kVec, kStages>;
    const std::string why = bulk::unsupported(k, "lookback_bulk");
    if (!why.empty()) throw Error(why);
    int device = 0, sms = 0, per_sm = 0;
    SATLAB_CUDA(cudaGetDevice(&device), ctx);
    SATLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), ctx);
    SATLAB_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(R::kSmem)), ctx);
    SATLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kBlock, R::kSmem), ctx);
    if (per_sm < 1) throw Error("bulk look-back scan: no block of " + std::to_string(kBlock) + " threads fits");
    const unsigned grid = unsigned(std::min<size_t>(tiles, size_t(sms) * per_sm));
    const size_t bytes = tiles * sizeof(unsigned long long);
    Scratch scratch(bytes, s);
    auto* status = scratch.as<unsigned long long>();
    SATLAB_CUDA(cudaMemsetAsync(status, 0, bytes, s), ctx);
    bool aligned = (reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 16 == 0;
    unsigned tiles32 = unsigned(tiles);
    unsigned first_poll = lookback::first_poll_ns(tiles, grid, 3000);
    void* args[] = {&in, &out, &n, &tiles32, &inclusive, &aligned, &status, &first_poll};
    SATLAB_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(k), dim3(grid), dim3(kBlock), args,
                                            R::kSmem, s),
                ctx + " grid=" + std::to_string(grid));
    SATLAB_LAUNCHED("bulk look-back scan", ctx + " grid=" + std::to_string(grid));
  }
};

template <int kBlock, int kVec, int kStages>
Variant bulk_variant(std::string name, std::string label) {
  Variant v = make_scan_variant<Impl<kBlock, kVec, kStages>>(
      std::move(name), std::move(label),
      "CUDA programming guide (TMA bulk copies), CUTLASS SM90 pipelines, Merrill & Garland 2016");
  bulk::refuse_without_sm90(v, kernel<uint32_t, kBlock, kVec, kStages>, "lookback_bulk");
  return v;
}

}  // namespace

Variant lookback_bulk_512_variant() {
  return bulk_variant<512, 8, 3>("lookback_bulk_512x3",
                                 "single pass, decoupled look-back, 512x32 tiles through 3 shared-memory stages "
                                 "by bulk async copies (sm_90)");
}

}  // namespace satlab::gpu::scan
