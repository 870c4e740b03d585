// Harris #1: interleaved addressing with divergent branching. Each block reduces blockDim elements in
// shared memory; at step s only threads with tid % 2s == 0 work, so every warp stays busy with a few
// active lanes (Harris, "Optimizing Parallel Reduction in CUDA", 2007: seed 003; seed 001).
// Bytes: reads n (partials are n/256).
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
    if (tid % (2 * k) == 0) s[tid] = Op()(s[tid], s[tid + k]);
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

Variant harris1_variant() {
  return make_variant<Impl>("harris1", "#1 interleaved, divergent branch", "Harris 2007 kernel 1; seeds 003, 000-001");
}

}  // namespace satlab::gpu::reduce
