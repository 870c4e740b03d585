
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {
namespace {

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

}  // namespace

struct UnrollLastWarp {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static void reduce_tile(T* s, unsigned tid, const T* in, T* out, size_t n) {
    first_add_during_load<BLOCK, T, Op>(s, tid, in, n);
    sequential_tree<BLOCK, 64, T, Op>(s, tid);
    if (tid < 32) last_warp<T, Op>(s, tid);
    if (tid == 0) out[blockIdx.x] = s[0];
  }
};

Variant harris5_variant() {
  return tile_variant<UnrollLastWarp, 256, 2>("harris5", "#5 unroll the last warp (__syncwarp)",
                                              harris_source(5));
}

}  // namespace satlab::gpu::reduce
