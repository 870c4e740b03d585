// Naive atomics: every thread adds its element straight into the result with one atomic. All atomics
// hit one address, so the L2 serialises them: the slow baseline of the seed write-up (seed 002,
// reduce1). Float min/max have no native atomic: a compare-and-swap loop stands in. Float sums
// accumulate in arrival order: accuracy of a serial sum, order not fixed.
// Bytes: reads n.
#include "gpu/reduce/reduce.hpp"
#include "gpu/reduce/reduce_common.cuh"

namespace satlab::gpu::reduce {
namespace {

constexpr int kBlock = 256;

template <typename T, typename Op>
__device__ __forceinline__ void atomic_fold(T* out, T v);
template <> __device__ __forceinline__ void atomic_fold<int32_t, Sum<int32_t>>(int32_t* o, int32_t v) { atomicAdd(o, v); }
template <> __device__ __forceinline__ void atomic_fold<int32_t, Min<int32_t>>(int32_t* o, int32_t v) { atomicMin(o, v); }
template <> __device__ __forceinline__ void atomic_fold<int32_t, Max<int32_t>>(int32_t* o, int32_t v) { atomicMax(o, v); }
template <> __device__ __forceinline__ void atomic_fold<float, Sum<float>>(float* o, float v) { atomicAdd(o, v); }
template <typename Op>
__device__ __forceinline__ void atomic_cas_fold(float* o, float v) {
  auto* bits = reinterpret_cast<unsigned*>(o);
  unsigned old = *bits, seen;
  do {
    seen = old;
    const float next = Op()(__uint_as_float(seen), v);
    if (__float_as_uint(next) == seen) return;
    old = atomicCAS(bits, seen, __float_as_uint(next));
  } while (old != seen);
}
template <> __device__ __forceinline__ void atomic_fold<float, Min<float>>(float* o, float v) { atomic_cas_fold<Min<float>>(o, v); }
template <> __device__ __forceinline__ void atomic_fold<float, Max<float>>(float* o, float v) { atomic_cas_fold<Max<float>>(o, v); }

template <typename T, typename Op>
__global__ void kernel(const T* in, T* out, size_t n) {
  const size_t i = size_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i < n) atomic_fold<T, Op>(out, in[i]);
}

struct Impl {
  template <typename T, typename Op>
  static void run(const T* in, T* out, size_t n, cudaStream_t s) {
    launch_fill_identity<T, Op>(out, n, s);
    if (n == 0) return;
    kernel<T, Op><<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, s>>>(in, out, n);
    SATLAB_LAUNCHED("atomic reduction", size_str(n));
  }
};

}  // namespace

Variant atomic_variant() {
  return make_variant<Impl>("atomic", "naive atomicAdd per element", "seed 002 (reduce1)");
}

}  // namespace satlab::gpu::reduce
