
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {

struct WarpShuffle {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static T fold_thread(const T* __restrict__ in, size_t n) {
    T v = Op::identity();
    const size_t stride = size_t(gridDim.x) * BLOCK;
#pragma unroll 4
    for (size_t i = size_t(blockIdx.x) * BLOCK + threadIdx.x; i < n; i += stride) v = Op()(v, in[i]);
    return v;
  }
};

Variant warp_shuffle_variant() {
  return grid_stride_variant<WarpShuffle, 512, 1, 4>("shuffle", "warp shuffle (__shfl_down_sync)",
                                                     "seed 002 (reduce4)");
}

}  // namespace satlab::gpu::reduce
