// Warp shuffle: grid-stride accumulation in registers, then __shfl_down_sync inside each warp and once
// more across the block's warp totals; no shared-memory tree at all (seed 002, reduce4; the
// shuffle-based successors of Harris's kernels). Bytes: reads n.
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 512;

template <typename T, typename Op>
__global__ void __launch_bounds__(kBlock) kernel(const T* __restrict__ in, T* out, size_t n) {
  T v = Op::identity();
  const size_t stride = size_t(gridDim.x) * kBlock;
#pragma unroll 4
  for (size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x; i < n; i += stride) v = Op()(v, in[i]);
  v = block_reduce_shfl<T, Op, kBlock>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t st) {
    const size_t grid = fill_grid(n, kBlock, kBlock, 4);
    two_pass<T, Op>(in, out, n, grid, st, [](const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
      kernel<T, Op><<<unsigned(blocks), kBlock, 0, s>>>(i, o, m);
    });
  }
};

}  // namespace

Variant warp_shuffle_variant() {
  return make_variant<Impl>("shuffle", "warp shuffle (__shfl_down_sync)", "seed 002 (reduce4)");
}

}  // namespace satlab::gpu::reduce
