
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {

struct Sequential {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static void reduce_shared(T* s, unsigned tid) {
    for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {  // sequential_tree in block_variants.cuh, for #4 and #5
      if (tid < k) s[tid] = Op()(s[tid], s[tid + k]);
      __syncthreads();
    }
  }
};

Variant harris3_variant() {
  return tree_variant<Sequential, 256>("harris3", "#3 sequential addressing", harris_source(3));
}

}  // namespace satlab::gpu::reduce
