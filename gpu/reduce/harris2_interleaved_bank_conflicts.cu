// Harris #2: interleaved addressing with a strided index instead of the modulo branch: no divergence
// inside warps, but the stride 2s makes shared-memory bank conflicts (Harris 2007, kernel 2: seed 003; seeds 000-001).
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
  const size_t i = size_t(blockIdx.x) * kBlock + tid;
  s[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned k = 1; k < kBlock; k *= 2) {
    const unsigned index = 2 * k * tid;
    if (index < kBlock) s[index] = Op()(s[index], s[index + k]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t st) {
    multipass<T, Op>(in, out, n, kBlock, st, [](const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
      kernel<T, Op><<<unsigned(blocks), kBlock, 0, s>>>(i, o, m);
    });
  }
};

}  // namespace

Variant harris2_variant() {
  return make_variant<Impl>("harris2", "#2 interleaved, bank conflicts", "Harris 2007 kernel 2; seeds 003, 000-001");
}

}  // namespace satlab::gpu::reduce
