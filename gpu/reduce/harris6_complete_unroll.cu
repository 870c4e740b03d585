
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {

struct CompleteUnroll {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static void reduce_tile(T* s, unsigned tid, const T* in, T* out, size_t n) {
    T v = first_add_during_load<BLOCK, T, Op>(s, tid, in, n);
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
};

namespace {

constexpr unsigned kBlock = 256;

template <typename T, typename Op>
void launch(unsigned block, const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
  switch (block) {
    case 1024: launch_tile<CompleteUnroll, 1024, T, Op>(i, o, m, blocks, s); break;
    case 512: launch_tile<CompleteUnroll, 512, T, Op>(i, o, m, blocks, s); break;
    case 256: launch_tile<CompleteUnroll, 256, T, Op>(i, o, m, blocks, s); break;
    case 128: launch_tile<CompleteUnroll, 128, T, Op>(i, o, m, blocks, s); break;
    default: launch_tile<CompleteUnroll, 64, T, Op>(i, o, m, blocks, s); break;
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
  return make_variant<Impl>("harris6", "#6 completely unrolled (template block size)", harris_source(6));
}

}  // namespace satlab::gpu::reduce
