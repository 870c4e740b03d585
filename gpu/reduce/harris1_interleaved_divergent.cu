
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {

struct InterleavedDivergent {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static void reduce_shared(T* s, unsigned tid) {
    for (unsigned k = 1; k < BLOCK; k *= 2) {
      if (tid % (2 * k) == 0) s[tid] = Op()(s[tid], s[tid + k]);
      __syncthreads();
    }
  }
};

Variant harris1_variant() {
  return tree_variant<InterleavedDivergent, 256>("harris1", "#1 interleaved, divergent branch",
                                                 harris_source(1));
}

}  // namespace satlab::gpu::reduce
