// Harris #5: unroll the last warp. Once 32 or fewer threads are active the loop and its block-wide
// barriers are dropped (Harris 2007, kernel 5: seed 003; seeds 000-001). The original relies on implicit warp
// synchrony through `volatile` shared memory, a data race since Volta's independent thread
// scheduling: here every unrolled step reads, then __syncwarp(), writes, then __syncwarp().
// Bytes: reads n.
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 256;

template <typename T, typename Op>
__device__ __forceinline__ void last_warp(volatile T* s, unsigned tid) {
  T v = s[tid];
#pragma unroll
  for (unsigned k = 32; k > 0; k >>= 1) {
    v = Op()(v, T(s[tid + k]));  // only lane 0's chain matters; the others read valid slots
    __syncwarp();
    s[tid] = v;
    __syncwarp();
  }
}

template <typename T, typename Op>
__global__ void kernel(const T* in, T* out, size_t n) {
  __shared__ T s[kBlock];
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * (2 * kBlock) + tid;
  T v = i < n ? in[i] : Op::identity();
  if (i + kBlock < n) v = Op()(v, in[i + kBlock]);
  s[tid] = v;
  __syncthreads();
  for (unsigned k = kBlock / 2; k > 32; k >>= 1) {
    if (tid < k) s[tid] = Op()(s[tid], s[tid + k]);
    __syncthreads();
  }
  if (tid < 32) last_warp<T, Op>(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t st) {
    multipass<T, Op>(in, out, n, 2 * kBlock, st, [](const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
      kernel<T, Op><<<unsigned(blocks), kBlock, 0, s>>>(i, o, m);
    });
  }
};

}  // namespace

Variant harris5_variant() {
  return make_variant<Impl>("harris5", "#5 unroll the last warp (__syncwarp)", "Harris 2007 kernel 5; seeds 003, 000-001");
}

}  // namespace satlab::gpu::reduce
