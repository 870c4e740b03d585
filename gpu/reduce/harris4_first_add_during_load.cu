// Harris #4: first add during load: each block covers 2 * blockDim elements and every thread folds two
// of them while loading, so no thread idles in the first step (Harris 2007, kernel 4: seed 003; seeds 000-001).
// Bytes: reads n.
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 256;

template <typename T, typename Op>
__global__ void kernel(const T* in, T* out, size_t n) {
  __shared__ T s[kBlock];
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * (2 * kBlock) + tid;
  T v = i < n ? in[i] : Op::identity();
  if (i + kBlock < n) v = Op()(v, in[i + kBlock]);
  s[tid] = v;
  __syncthreads();
  for (unsigned k = kBlock / 2; k > 0; k >>= 1) {
    if (tid < k) s[tid] = Op()(s[tid], s[tid + k]);
    __syncthreads();
  }
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

Variant harris4_variant() {
  return make_variant<Impl>("harris4", "#4 first add during load", "Harris 2007 kernel 4; seeds 003, 000-001");
}

}  // namespace satlab::gpu::reduce
