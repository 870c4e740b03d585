// Single pass: one launch, no second kernel and no memset. Every block folds its grid-stride share
// with 16-byte loads, publishes its partial (__threadfence) and takes a ticket from an atomic counter;
// the block that draws the last ticket knows all partials are visible, folds them and resets the
// counter for the next call (CUDA samples "threadFenceReduction"). Saves the second launch and its
// gap, which matters most at small n. The counter and partials live in a workspace allocated once per
// process (calls on one stream at a time). Bytes: reads n.
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 512, kPerSm = 4;

template <typename T, typename Op>
__global__ void __launch_bounds__(kBlock) kernel(const T* __restrict__ in, T* out, size_t n, T* partials,
                                                 unsigned* ticket) {
  T v = thread_fold_vec4<T, Op>(in, n, size_t(blockIdx.x) * kBlock + threadIdx.x, size_t(gridDim.x) * kBlock);
  v = block_reduce_shfl<T, Op, kBlock>(v);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    __threadfence();  // the partial is visible device-wide before the ticket says so
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  T w = Op::identity();
  for (unsigned i = threadIdx.x; i < gridDim.x; i += kBlock) w = Op()(w, ((volatile T*)partials)[i]);
  w = block_reduce_shfl<T, Op, kBlock>(w);  // its shared slots were last read before the barrier above
  if (threadIdx.x == 0) {
    *out = w;
    *ticket = 0;  // ready for the next launch
  }
}

// Counter (zeroed once) and room for the largest grid's partials. Freed at exit: the holder's destructor
// is registered after the CUDA runtime's own exit handler (its first CUDA call comes before), so it runs
// while the context still exists and compute-sanitizer's leak check finds nothing left.
struct Workspace {
  void* p = nullptr;
  explicit Workspace(size_t partial_bytes) {
    SATLAB_CUDA(cudaMalloc(&p, 16 + partial_bytes), "single-pass workspace");
    SATLAB_CUDA(cudaMemset(p, 0, 16), "single-pass workspace");
  }
  ~Workspace() { cudaFree(p); }  // an error at exit has no one to report to
};

void* workspace(size_t partial_bytes) {
  static Workspace w(partial_bytes);
  return w.p;
}

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t s) {
    const size_t grid = fill_grid(n, 16 * kBlock, kBlock, kPerSm);
    const size_t max_grid = fill_grid(~size_t(0) >> 1, 16 * kBlock, kBlock, kPerSm);
    char* ws = static_cast<char*>(workspace(max_grid * 8));
    kernel<T, Op><<<unsigned(grid), kBlock, 0, s>>>(in, out, n, reinterpret_cast<T*>(ws + 16),
                                                    reinterpret_cast<unsigned*>(ws));
    SATLAB_LAUNCHED("single-pass reduction", size_str(n));
  }
};

}  // namespace

Variant single_pass_variant() {
  return make_variant<Impl>("single_pass", "single pass, 16-byte loads (last block finishes)",
                            "CUDA samples threadFenceReduction");
}

}  // namespace satlab::gpu::reduce
