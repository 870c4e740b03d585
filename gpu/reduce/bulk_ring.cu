// Hopper's copy engine feeding the reduction (sm_90): the grid-stride variants keep each thread's loads in
// flight in registers (vec4: four 16-byte loads a thread); here one thread per block hands whole 16 KB tiles
// to bulk asynchronous copies (cp.async.bulk into a ring of kStages shared-memory stages, tracked by
// mbarriers), kStages tiles ahead, and the block folds each tile from shared memory as it lands
// (gpu/common/bulk.cuh). Bytes in flight per block: kStages x 16 KB, without a register spent on them.
// Block b folds tiles b, b + G, ... from the input's first 16-byte boundary; the up to 3 elements before it
// and those past the last whole tile by plain loads. Partials folded by a second launch of the same kernel
// (two_pass). Bytes: reads n. Sources: the CUDA programming guide's "Asynchronous Data Copies using the
// Tensor Memory Accelerator", CUTLASS's SM90 TMA pipelines (the mbarrier protocol).
#include "gpu/common/bulk.cuh"
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 256, kStages = 4, kVecs = 4;  // a tile: 256 threads x 4 x 16 bytes = 16 KB
constexpr unsigned kTileBytes = kBlock * kVecs * 16;
constexpr size_t kSmem = size_t(kStages) * kTileBytes;

template <typename T, typename Op>
__device__ __forceinline__ T fold4(T v, uint4 r) {
  if constexpr (std::is_same_v<T, float>)
    return Op()(Op()(v, __uint_as_float(r.x)), Op()(Op()(__uint_as_float(r.y), __uint_as_float(r.z)),
                                                     __uint_as_float(r.w)));
  else
    return Op()(Op()(v, T(r.x)), Op()(Op()(T(r.y), T(r.z)), T(r.w)));
}

template <typename T, typename Op>
__global__ void __launch_bounds__(kBlock) kernel(const T* __restrict__ in, T* out, size_t n, size_t head,
                                                 size_t whole) {
  constexpr size_t kTile = kTileBytes / sizeof(T);  // elements a tile
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ uint64_t bar[kStages];
  const size_t grid = gridDim.x;
  const size_t mine = whole > blockIdx.x ? (whole - blockIdx.x + grid - 1) / grid : 0;
  const auto issue = [&](size_t k) {
    uint64_t* b = &bar[k % kStages];
    bulk::arrive_expect_tx(b, kTileBytes);
    bulk::load(smem + (k % kStages) * kTileBytes, in + head + (blockIdx.x + k * grid) * kTile, kTileBytes, b);
  };
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < kStages; ++s) bulk::init(&bar[s], 1);
    bulk::fence_init();
    for (size_t k = 0; k < size_t(kStages) && k < mine; ++k) issue(k);
  }
  __syncthreads();
  T v = Op::identity();
  for (size_t k = 0; k < mine; ++k) {
    bulk::wait(&bar[k % kStages], unsigned(k / kStages) & 1);
    const uint4* p = reinterpret_cast<const uint4*>(smem + (k % kStages) * kTileBytes) + threadIdx.x;
#pragma unroll
    for (int j = 0; j < kVecs; ++j) v = fold4<T, Op>(v, p[kBlock * j]);
    __syncthreads();  // every thread has read the stage: it may be refilled
    if (threadIdx.x == 0 && k + kStages < mine) issue(k + kStages);
  }
  if (blockIdx.x == 0 && threadIdx.x < head) v = Op()(v, in[threadIdx.x]);
  for (size_t i = head + whole * kTile + size_t(blockIdx.x) * kBlock + threadIdx.x; i < n; i += grid * kBlock)
    v = Op()(v, in[i]);
  v = block_reduce_shfl<T, Op, kBlock>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t st) {
    auto* k = kernel<T, Op>;
    const std::string why = bulk::unsupported(k, "bulk_ring");
    if (!why.empty()) throw Error(why);
    static const int per_sm = [k] {
      int device = 0, sms = 0, blocks = 0;
      SATLAB_CUDA(cudaGetDevice(&device), "bulk_ring");
      SATLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "bulk_ring");
      SATLAB_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem)), "bulk_ring");
      SATLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, kBlock, kSmem), "bulk_ring");
      if (blocks < 1) throw Error("bulk_ring: no block of " + std::to_string(kBlock) + " threads fits");
      return blocks;
    }();
    const size_t grid = fill_grid(n, kTileBytes / sizeof(T), kBlock, per_sm);
    two_pass<T, Op>(in, out, n, grid, st, [k](const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
      // The elements before the first 16-byte boundary, and those past the last whole tile, by plain loads.
      const size_t head = std::min(m, ((16 - (reinterpret_cast<uintptr_t>(i) & 15)) & 15) / sizeof(T));
      const size_t whole = (m - head) / (kTileBytes / sizeof(T));
      k<<<unsigned(blocks), kBlock, kSmem, s>>>(i, o, m, head, whole);
    });
  }
};

}  // namespace

Variant bulk_ring_variant() {
  Variant v = make_variant<Impl>("bulk_ring", "16 KB tiles through 4 shared-memory stages by bulk async copies (sm_90)",
                                 "CUDA programming guide (TMA bulk copies), CUTLASS SM90 pipelines");
  bulk::refuse_without_sm90(v, kernel<int32_t, Sum<int32_t>>, "bulk_ring");
  return v;
}

}  // namespace satlab::gpu::reduce
