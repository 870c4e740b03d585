
#include "gpu/reduce/block_variants.cuh"

namespace satlab::gpu::reduce {

struct FirstAddDuringLoad {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static void reduce_tile(T* s, unsigned tid, const T* in, T* out, size_t n) {
    // first_add_during_load in block_variants.cuh, for #5 and #6
    const size_t i = size_t(blockIdx.x) * (2 * BLOCK) + tid;
    T v = i < n ? in[i] : Op::identity();
    if (i + BLOCK < n) v = Op()(v, in[i + BLOCK]);
    s[tid] = v;
    __syncthreads();
    sequential_tree<BLOCK, 1, T, Op>(s, tid);
    if (tid == 0) out[blockIdx.x] = s[0];
  }
};

Variant harris4_variant() {
  return tile_variant<FirstAddDuringLoad, 256, 2>("harris4", "#4 first add during load", harris_source(4));
}

}  // namespace satlab::gpu::reduce
