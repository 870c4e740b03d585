
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {

struct MultipleAdds {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static T fold_thread(const T* __restrict__ in, size_t n) {
    const size_t stride = size_t(gridDim.x) * (2 * BLOCK);
    size_t i = size_t(blockIdx.x) * (2 * BLOCK) + threadIdx.x;
    T v = Op::identity();
#pragma unroll 4
    for (; i + BLOCK < n; i += stride) v = Op()(v, Op()(in[i], in[i + BLOCK]));
    if (i < n) v = Op()(v, in[i]);
    return v;
  }
};

Variant harris7_variant() {
  return grid_stride_variant<MultipleAdds, 256, 2, 8>("harris7", "#7 multiple adds per thread (grid stride)",
                                                      harris_source(7));
}

}  // namespace satlab::gpu::reduce
