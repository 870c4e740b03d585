// Harris #6: complete unrolling. The block size is a template parameter, so every step of the tree is
// unrolled at compile time and the tests on it vanish (Harris 2007, kernel 6: seed 003; seeds 000-001). The host
// picks the instantiation with a switch on the block size. The last warp steps use __syncwarp()
// between reads and writes (the original's implicit warp synchrony is a race since Volta).
// Bytes: reads n.
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 256;

template <unsigned BLOCK, typename T, typename Op>
__global__ void kernel(const T* in, T* out, size_t n) {
  __shared__ T s[BLOCK];
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * (2 * BLOCK) + tid;
  T v = i < n ? in[i] : Op::identity();
  if (i + BLOCK < n) v = Op()(v, in[i + BLOCK]);
  s[tid] = v;
  __syncthreads();
  if (BLOCK >= 1024) { if (tid < 512) s[tid] = v = Op()(v, s[tid + 512]); __syncthreads(); }
  if (BLOCK >= 512) { if (tid < 256) s[tid] = v = Op()(v, s[tid + 256]); __syncthreads(); }
  if (BLOCK >= 256) { if (tid < 128) s[tid] = v = Op()(v, s[tid + 128]); __syncthreads(); }
  if (BLOCK >= 128) { if (tid < 64) s[tid] = v = Op()(v, s[tid + 64]); __syncthreads(); }
  if (tid < 32) {
    volatile T* w = s;
#define SATLAB_STEP(K)                   \
  if (BLOCK >= 2 * K) {                  \
    v = Op()(v, T(w[tid + K]));          \
    __syncwarp();                        \
    w[tid] = v;                          \
    __syncwarp();                        \
  }
    SATLAB_STEP(32) SATLAB_STEP(16) SATLAB_STEP(8) SATLAB_STEP(4) SATLAB_STEP(2) SATLAB_STEP(1)
#undef SATLAB_STEP
  }
  if (tid == 0) out[blockIdx.x] = v;
}

template <typename T, typename Op>
void launch(unsigned block, const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
  switch (block) {
    case 1024: kernel<1024, T, Op><<<unsigned(blocks), 1024, 0, s>>>(i, o, m); break;
    case 512: kernel<512, T, Op><<<unsigned(blocks), 512, 0, s>>>(i, o, m); break;
    case 256: kernel<256, T, Op><<<unsigned(blocks), 256, 0, s>>>(i, o, m); break;
    case 128: kernel<128, T, Op><<<unsigned(blocks), 128, 0, s>>>(i, o, m); break;
    default: kernel<64, T, Op><<<unsigned(blocks), 64, 0, s>>>(i, o, m); break;
  }
}

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t st) {
    multipass<T, Op>(in, out, n, 2 * kBlock, st, [](const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
      launch<T, Op>(kBlock, i, o, m, blocks, s);
    });
  }
};

}  // namespace

Variant harris6_variant() {
  return make_variant<Impl>("harris6", "#6 completely unrolled (template block size)", "Harris 2007 kernel 6; seeds 003, 000-001");
}

}  // namespace satlab::gpu::reduce
