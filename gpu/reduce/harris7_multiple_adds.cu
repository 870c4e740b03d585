// Harris #7: multiple elements per thread. A fixed grid that just fills the GPU walks the input with a
// grid stride, each thread adding two elements per step (loads unrolled so several are in flight),
// then the unrolled tree of #6 finishes the block (Harris 2007, kernel 7 and Brent's theorem: seed 003).
// The original's warp-synchronous tail is replaced by shuffles (race-free since Volta).
// Bytes: reads n.
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 256;

template <typename T, typename Op>
__global__ void __launch_bounds__(kBlock) kernel(const T* __restrict__ in, T* out, size_t n) {
  const size_t stride = size_t(gridDim.x) * (2 * kBlock);
  size_t i = size_t(blockIdx.x) * (2 * kBlock) + threadIdx.x;
  T v = Op::identity();
#pragma unroll 4
  for (; i + kBlock < n; i += stride) v = Op()(v, Op()(in[i], in[i + kBlock]));
  if (i < n) v = Op()(v, in[i]);
  v = block_reduce_shfl<T, Op, kBlock>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t st) {
    const size_t grid = fill_grid(n, 2 * kBlock, kBlock, 8);
    two_pass<T, Op>(in, out, n, grid, st, [](const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
      kernel<T, Op><<<unsigned(blocks), kBlock, 0, s>>>(i, o, m);
    });
  }
};

}  // namespace

Variant harris7_variant() {
  return make_variant<Impl>("harris7", "#7 multiple adds per thread (grid stride)", "Harris 2007 kernel 7; seeds 003, 000-001");
}

}  // namespace satlab::gpu::reduce
