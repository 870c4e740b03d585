// The frame that the Harris kernels (#1-#7) and the grid-stride variants share, so that each variant's
// file holds its kernel body (the lesson) and one registry line. A variant is a struct K with either
//   template <unsigned BLOCK, typename T, typename Op>
//   __device__ static void reduce_tile(T* s, unsigned tid, const T* in, T* out, size_t n);
// (one tile per block: fold the block's BLOCK * ITEMS inputs through s[BLOCK], write out[blockIdx.x];
// multipass repeats the launch until one value is left), or
//   template <unsigned BLOCK, typename T, typename Op>
//   __device__ static T fold_thread(const T* __restrict__ in, size_t n);
// (this thread's share of a fixed grid's walk over the input; block_reduce_shfl finishes the block and
// two_pass folds the partials). Also the load and tree that later Harris kernels take from #3 and #4.
#pragma once
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {

// The registry's source line of Harris's kernel k.
inline std::string harris_source(int k) {
  return "Harris 2007 kernel " + std::to_string(k) + "; seeds 003, 000-001";
}

// Harris #1-#6 as published: no __launch_bounds__.
template <typename K, unsigned BLOCK, typename T, typename Op>
__global__ void tile_kernel(const T* in, T* out, size_t n) {
  __shared__ T s[BLOCK];
  K::template reduce_tile<BLOCK, T, Op>(s, threadIdx.x, in, out, n);
}

template <typename K, unsigned BLOCK, typename T, typename Op>
void launch_tile(const T* in, T* out, size_t n, size_t blocks, cudaStream_t s) {
  tile_kernel<K, BLOCK, T, Op><<<unsigned(blocks), BLOCK, 0, s>>>(in, out, n);
}

template <typename K, unsigned BLOCK, unsigned ITEMS>
struct TileImpl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t s) {
    multipass<T, Op>(in, out, n, size_t(BLOCK) * ITEMS, s, launch_tile<K, BLOCK, T, Op>);
  }
};

// A variant whose blocks each fold BLOCK * ITEMS inputs.
template <typename K, unsigned BLOCK, unsigned ITEMS>
Variant tile_variant(std::string name, std::string label, std::string source) {
  return make_variant<TileImpl<K, BLOCK, ITEMS>>(std::move(name), std::move(label), std::move(source));
}

// Harris #1-#3 differ in the tree only: this loads one input per thread into shared memory (the
// identity past the end); Tree::reduce_shared<BLOCK, T, Op>(s, tid) folds the tile into s[0].
template <typename Tree>
struct OnePerThread {
  template <unsigned BLOCK, typename T, typename Op>
  __device__ static void reduce_tile(T* s, unsigned tid, const T* in, T* out, size_t n) {
    const size_t i = size_t(blockIdx.x) * BLOCK + tid;
    s[tid] = i < n ? in[i] : Op::identity();
    __syncthreads();
    Tree::template reduce_shared<BLOCK, T, Op>(s, tid);
    if (tid == 0) out[blockIdx.x] = s[0];
  }
};

template <typename Tree, unsigned BLOCK>
Variant tree_variant(std::string name, std::string label, std::string source) {
  return tile_variant<OnePerThread<Tree>, BLOCK, 1>(std::move(name), std::move(label), std::move(source));
}

// Harris #4's lesson (spelt out in harris4_first_add_during_load.cu), taken over by #5 and #6: a block
// covers 2 * BLOCK inputs and every thread folds its two while loading. Returns the thread's value.
template <unsigned BLOCK, typename T, typename Op>
__device__ __forceinline__ T first_add_during_load(T* s, unsigned tid, const T* in, size_t n) {
  const size_t i = size_t(blockIdx.x) * (2 * BLOCK) + tid;
  T v = i < n ? in[i] : Op::identity();
  if (i + BLOCK < n) v = Op()(v, in[i + BLOCK]);
  s[tid] = v;
  __syncthreads();
  return v;
}

// Harris #3's lesson (spelt out in harris3_sequential.cu), taken over by #4 and #5: sequential
// addressing, folding s[tid + k] into s[tid] for k = BLOCK / 2 down to LAST.
template <unsigned BLOCK, unsigned LAST, typename T, typename Op>
__device__ __forceinline__ void sequential_tree(T* s, unsigned tid) {
  for (unsigned k = BLOCK / 2; k >= LAST; k >>= 1) {
    if (tid < k) s[tid] = Op()(s[tid], s[tid + k]);
    __syncthreads();
  }
}

// Harris #7 and the grid-stride variants after it: __launch_bounds__, restrict.
template <typename K, unsigned BLOCK, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK) grid_stride_kernel(const T* __restrict__ in, T* out, size_t n) {
  T v = K::template fold_thread<BLOCK, T, Op>(in, n);
  v = block_reduce_shfl<T, Op, BLOCK>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

template <typename K, unsigned BLOCK, unsigned ITEMS, int PER_SM>
struct GridStrideImpl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t st) {
    const size_t grid = fill_grid(n, size_t(BLOCK) * ITEMS, BLOCK, PER_SM);
    two_pass<T, Op>(in, out, n, grid, st, [](const T* i, T* o, size_t m, size_t blocks, cudaStream_t s) {
      grid_stride_kernel<K, BLOCK, T, Op><<<unsigned(blocks), BLOCK, 0, s>>>(i, o, m);
    });
  }
};

// A variant run on a grid of PER_SM blocks per SM at most, one per BLOCK * ITEMS inputs.
template <typename K, unsigned BLOCK, unsigned ITEMS, int PER_SM>
Variant grid_stride_variant(std::string name, std::string label, std::string source) {
  return make_variant<GridStrideImpl<K, BLOCK, ITEMS, PER_SM>>(std::move(name), std::move(label),
                                                               std::move(source));
}

}  // namespace satlab::gpu::reduce
