// Shared pieces of the reduction variants: the operators (sum, min, max) with their identities, the
// type/operator dispatch that turns a variant's kernel template into a registry entry, and the
// multi-pass driver that reduces per-block partials until one value is left.
#pragma once
#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cstdint>
#include <string>

#include "core/variant.hpp"
#include "gpu/check.hpp"
#include "gpu/common/warp.cuh"

namespace satlab::gpu::reduce {

// int32 sums wrap around modulo 2^32 (computed in unsigned arithmetic: defined behaviour), so every
// summation order gives the same bits; float sums differ by rounding only.
template <typename T>
struct Sum {
  __host__ __device__ static T identity() { return T(0); }
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
};
template <>
struct Sum<int32_t> {
  __host__ __device__ static int32_t identity() { return 0; }
  __host__ __device__ int32_t operator()(int32_t a, int32_t b) const { return int32_t(uint32_t(a) + uint32_t(b)); }
};
template <typename T>
struct Min {
  __host__ __device__ static T identity();
  // A NaN (no depth) loses on either side, so the result does not depend on the reduction's order.
  __host__ __device__ T operator()(T a, T b) const { return (b < a || a != a) ? b : a; }
};
template <typename T>
struct Max {
  __host__ __device__ static T identity();
  __host__ __device__ T operator()(T a, T b) const { return (a < b || a != a) ? b : a; }
};
template <> __host__ __device__ inline float Min<float>::identity() { return FLT_MAX; }
template <> __host__ __device__ inline float Max<float>::identity() { return -FLT_MAX; }
template <> __host__ __device__ inline int32_t Min<int32_t>::identity() { return INT_MAX; }
template <> __host__ __device__ inline int32_t Max<int32_t>::identity() { return INT_MIN; }

inline std::string size_str(size_t n) { return "n=" + std::to_string(n); }

template <typename T, typename Op>
__global__ void fill_identity(T* out) {
  *out = Op::identity();
}

// Writes Op's identity to *out on stream s: the reduction of nothing (n = 0), or a starting value.
template <typename T, typename Op>
void launch_fill_identity(T* out, size_t n, cudaStream_t s) {
  fill_identity<T, Op><<<1, 1, 0, s>>>(out);
  SATLAB_LAUNCHED("fill_identity", size_str(n));
}

// Reduces with a kernel that turns `m` inputs into ceil(m / per_block) partials, launched as
// launch(in, out, m, blocks, stream), until one value is left in `out`. n = 0 gives the identity.
template <typename T, typename Op, typename Launch>
void multipass(const T* in, T* out, size_t n, size_t per_block, cudaStream_t s, Launch launch) {
  if (n == 0) {
    launch_fill_identity<T, Op>(out, n, s);
    return;
  }
  const size_t first = (n + per_block - 1) / per_block;
  Scratch scratch(2 * first * sizeof(T), s);
  const T* src = in;
  size_t m = n;
  for (int pass = 0;; ++pass) {
    const size_t blocks = (m + per_block - 1) / per_block;
    T* dst = blocks == 1 ? out : scratch.as<T>((pass & 1) * first);
    launch(src, dst, m, blocks, s);
    SATLAB_LAUNCHED("reduction pass " + std::to_string(pass), size_str(m));
    if (blocks == 1) return;
    src = dst;
    m = blocks;
  }
}

// For grid-stride kernels that run a fixed grid (enough blocks to fill the GPU): the first launch turns
// n inputs into `grid` partials, a second one-block launch folds those.
template <typename T, typename Op, typename Launch>
void two_pass(const T* in, T* out, size_t n, size_t grid, cudaStream_t s, Launch launch) {
  if (n == 0) {
    launch_fill_identity<T, Op>(out, n, s);
    return;
  }
  if (grid <= 1) {
    launch(in, out, n, size_t(1), s);
    SATLAB_LAUNCHED("reduction (one block)", size_str(n));
    return;
  }
  Scratch partials(grid * sizeof(T), s);
  launch(in, partials.as<T>(), n, grid, s);
  SATLAB_LAUNCHED("reduction pass 0", size_str(n));
  launch(partials.as<T>(), out, grid, size_t(1), s);
  SATLAB_LAUNCHED("reduction pass 1", size_str(grid));
}

// Blocks that fill every SM with `block`-thread blocks (`per_sm` resident each), capped by the work.
size_t fill_grid(size_t n, size_t per_block, int block, int per_sm);

// Builds a registry entry from an implementation struct with
//   template <typename T, typename Op> static void run(const T* in, T* out, size_t n, cudaStream_t s);
// The bytes model is one read of the input (partials are negligible).
template <typename Impl>
Variant make_variant(std::string name, std::string label, std::string source, bool min_max = true) {
  Variant v;
  v.name = std::move(name);
  v.family = Family::Reduce;
  v.label = std::move(label);
  v.source = std::move(source);
  v.dtypes = {DType::I32, DType::F32};
  v.bytes = [](size_t n, DType t) { return double(n) * double(dtype_size(t)); };
  v.refuses = [](size_t, DType t) -> std::string {
    return t == DType::I32 || t == DType::F32 ? "" : std::string("no ") + to_string(t) + " reduction";
  };
  v.reduce = [min_max, name = v.name](const ReduceArgs& a) {
    auto s = cudaStream_t(a.stream);
    if (a.op != ReduceOp::Sum && !min_max) throw Error(name + " reduces sums only");
    if (a.dtype == DType::I32) {
      auto in = static_cast<const int32_t*>(a.in);
      auto out = static_cast<int32_t*>(a.out);
      if (a.op == ReduceOp::Sum) Impl::template run<int32_t, Sum<int32_t>>(in, out, a.n, s);
      else if (a.op == ReduceOp::Min) Impl::template run<int32_t, Min<int32_t>>(in, out, a.n, s);
      else Impl::template run<int32_t, Max<int32_t>>(in, out, a.n, s);
    } else if (a.dtype == DType::F32) {
      auto in = static_cast<const float*>(a.in);
      auto out = static_cast<float*>(a.out);
      if (a.op == ReduceOp::Sum) Impl::template run<float, Sum<float>>(in, out, a.n, s);
      else if (a.op == ReduceOp::Min) Impl::template run<float, Min<float>>(in, out, a.n, s);
      else Impl::template run<float, Max<float>>(in, out, a.n, s);
    } else {
      throw Error(name + ": unsupported type " + to_string(a.dtype));
    }
  };
  return v;
}

template <typename T> struct Vec4;
template <> struct Vec4<int32_t> { using type = int4; };
template <> struct Vec4<float> { using type = float4; };

// One thread's share of a grid-stride pass with 16-byte loads (int4 / float4), four vectors in flight
// per step; the unaligned head and the tail are folded with scalar loads. thread/threads: this thread's
// index in the grid and the grid's thread count.
template <typename T, typename Op>
__device__ __forceinline__ T thread_fold_vec4(const T* __restrict__ in, size_t n, size_t thread, size_t threads) {
  using V = typename Vec4<T>::type;
  const size_t head = ((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / sizeof(T);
  const size_t h = head < n ? head : n;
  T v = Op::identity();
  if (thread < h) v = in[thread];
  const V* vin = reinterpret_cast<const V*>(in + h);
  const size_t nv = (n - h) / 4;
  size_t i = thread;
  for (; i + 3 * threads < nv; i += 4 * threads) {
    const V a = vin[i], b = vin[i + threads], c = vin[i + 2 * threads], d = vin[i + 3 * threads];
    v = Op()(v, Op()(Op()(Op()(a.x, a.y), Op()(a.z, a.w)), Op()(Op()(b.x, b.y), Op()(b.z, b.w))));
    v = Op()(v, Op()(Op()(Op()(c.x, c.y), Op()(c.z, c.w)), Op()(Op()(d.x, d.y), Op()(d.z, d.w))));
  }
  for (; i < nv; i += threads) {
    const V a = vin[i];
    v = Op()(v, Op()(Op()(a.x, a.y), Op()(a.z, a.w)));
  }
  const size_t tail = h + nv * 4;
  if (tail + thread < n) v = Op()(v, in[tail + thread]);
  return v;
}

// Block-level reduction through shuffles (warp::reduce: no shared memory, no volatile, no race inside a
// warp): lane 0 of every warp holds its warp's value, warp 0 folds them. The result is valid in thread 0.
template <typename T, typename Op, int BLOCK>
__device__ __forceinline__ T block_reduce_shfl(T v) {
  __shared__ T warp_vals[BLOCK / 32];
  v = warp::reduce(v, Op());
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_vals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / 32 ? warp_vals[lane] : Op::identity();
    v = warp::reduce(v, Op());
  }
  return v;
}

}  // namespace satlab::gpu::reduce
