
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {

struct Vectorized {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static T fold_thread(const T* __restrict__ in, size_t n) {
    return thread_fold_vec4<T, Op>(in, n, size_t(blockIdx.x) * BLOCK + threadIdx.x,
                                   size_t(gridDim.x) * BLOCK);
  }
};

Variant vectorized_variant() {
  return grid_stride_variant<Vectorized, 256, 16, 8>("vec4", "16-byte vector loads, grid stride",
                                                     "CUDA best practice (int4/float4 loads)");
}

}  // namespace satlab::gpu::reduce
