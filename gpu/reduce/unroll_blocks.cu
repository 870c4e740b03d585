// Unrolled blocks (2, 4, 8): each block covers UNROLL consecutive block-widths and every thread folds
// its UNROLL elements while loading, independent loads in flight; the in-block tree is sequential
// addressing finished by warp shuffles (the "reduceUnrolling" family of the seed write-ups; seed 002).
// Bytes: reads n.
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 256;

template <int UNROLL, typename T, typename Op>
__global__ void __launch_bounds__(kBlock) kernel(const T* __restrict__ in, T* out, size_t n) {
  const size_t base = size_t(blockIdx.x) * (UNROLL * kBlock) + threadIdx.x;
  T v = Op::identity();
  if (base + (UNROLL - 1) * kBlock < n) {
    T x[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) x[u] = in[base + size_t(u) * kBlock];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v = Op()(v, x[u]);
  } else {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + size_t(u) * kBlock < n) v = Op()(v, in[base + size_t(u) * kBlock]);
  }
  v = block_reduce_shfl<T, Op, kBlock>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

template <int UNROLL>
struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t st) {
    multipass<T, Op>(in, out, n, UNROLL * kBlock, st, [](const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
      kernel<UNROLL, T, Op><<<unsigned(blocks), kBlock, 0, s>>>(i, o, m);
    });
  }
};

}  // namespace

Variant unroll2_variant() { return make_variant<Impl<2>>("unroll2", "unroll 2 blocks", "seed 002 (reduceUnrolling2)"); }
Variant unroll4_variant() { return make_variant<Impl<4>>("unroll4", "unroll 4 blocks", "seed 002 (reduceUnrolling4)"); }
Variant unroll8_variant() { return make_variant<Impl<8>>("unroll8", "unroll 8 blocks", "seed 002 (reduceUnrolling8)"); }

}  // namespace satlab::gpu::reduce
