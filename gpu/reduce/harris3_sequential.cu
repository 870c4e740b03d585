// Harris #3: sequential addressing: at step s thread tid folds element tid + s, so active threads are
// contiguous (no divergence) and accesses are conflict-free; half the threads idle from the first
// step (Harris 2007, kernel 3: seed 003; seeds 000-001). Bytes: reads n.
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
  for (unsigned k = kBlock / 2; k > 0; k >>= 1) {
    if (tid < k) s[tid] = Op()(s[tid], s[tid + k]);
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

Variant harris3_variant() {
  return make_variant<Impl>("harris3", "#3 sequential addressing", "Harris 2007 kernel 3; seeds 003, 000-001");
}

}  // namespace satlab::gpu::reduce
