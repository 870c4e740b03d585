
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {

struct InterleavedStrided {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static void reduce_shared(T* s, unsigned tid) {
    for (unsigned k = 1; k < BLOCK; k *= 2) {
      const unsigned index = 2 * k * tid;
      if (index < BLOCK) s[index] = Op()(s[index], s[index + k]);
      __syncthreads();
    }
  }
};

Variant harris2_variant() {
  return tree_variant<InterleavedStrided, 256>("harris2", "#2 interleaved, bank conflicts", harris_source(2));
}

}  // namespace satlab::gpu::reduce
