// Depth normalisation (min/max reduction, then (raw - min) / range) and the thin-lens circle of
// confusion, bit-identical to core's normalise_depth / coc_from_depth: every float operation is an
// explicitly rounded intrinsic, so nothing is contracted into a fused multiply-add.
// Bytes: min/max reads 4 B per pixel; normalise reads 4 and writes 4; CoC reads 4 and writes 4.
#include <cuda_runtime.h>

#include <cfloat>
#include <string>

#include "core/error.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

void check(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}

unsigned blocks_for(size_t n) { return unsigned(std::min<size_t>((n + kThreads - 1) / kThreads, 65535 * 16)); }

// Grid-stride min/max, warp shuffles, then one pair per block; the last kernel folds the pairs.
__global__ void minmax_blocks(const float* __restrict__ x, size_t n, float2* __restrict__ part) {
  float lo = FLT_MAX, hi = -FLT_MAX;
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads) {
    const float v = x[i];
    lo = fminf(lo, v), hi = fmaxf(hi, v);
  }
  __shared__ float2 warp[kThreads / 32];
  for (int m = 16; m > 0; m >>= 1) {
    lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, m));
    hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, m));
  }
  if ((threadIdx.x & 31) == 0) warp[threadIdx.x >> 5] = make_float2(lo, hi);
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) lo = fminf(lo, warp[w].x), hi = fmaxf(hi, warp[w].y);
    part[blockIdx.x] = make_float2(lo, hi);
  }
}

__global__ void minmax_final(const float2* __restrict__ part, int parts, float* __restrict__ out) {
  float lo = FLT_MAX, hi = -FLT_MAX;
  for (int i = threadIdx.x; i < parts; i += 32) lo = fminf(lo, part[i].x), hi = fmaxf(hi, part[i].y);
  for (int m = 16; m > 0; m >>= 1) {
    lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, m));
    hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, m));
  }
  if (threadIdx.x == 0) out[0] = lo, out[1] = hi;
}

__global__ void normalise(const float* __restrict__ raw, const float* __restrict__ mm, float* __restrict__ d,
                          size_t n) {
  const float lo = mm[0], range = __fsub_rn(mm[1], mm[0]);
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads)
    d[i] = range > 0.f ? __fdiv_rn(__fsub_rn(raw[i], lo), range) : 0.f;
}

__global__ void fill_kernel(float* __restrict__ d, size_t n, float value) {
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads) d[i] = value;
}

struct Lens {
  float aperture, max_radius, near_depth, far_depth;
  bool disparity;
};

__device__ __forceinline__ float inverse_depth(float d, const Lens& p) {
  if (p.disparity) {
    const float a = __fdiv_rn(1.0f, p.far_depth), b = __fdiv_rn(1.0f, p.near_depth);
    return __fadd_rn(a, __fmul_rn(d, __fsub_rn(b, a)));
  }
  const float z = __fadd_rn(p.near_depth, __fmul_rn(d, __fsub_rn(p.far_depth, p.near_depth)));
  return __fdiv_rn(1.0f, z);
}

__global__ void coc_kernel(const float* __restrict__ d, float* __restrict__ coc, size_t n, Lens p, float focus) {
  const float inv_focus = inverse_depth(focus, p);
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads) {
    const float c = __fmul_rn(p.aperture, __fsub_rn(inverse_depth(d[i], p), inv_focus));
    coc[i] = fminf(fmaxf(c, -p.max_radius), p.max_radius);  // a NaN gives the bound, as on the CPU
  }
}

}  // namespace

size_t minmax_scratch_bytes(size_t) { return kMaxBlocks * sizeof(float2); }

void depth_minmax(const float* depth, size_t n, float* minmax, void* scratch, size_t scratch_bytes, void* stream) {
  if (n == 0) throw Error("depth_minmax of an empty depth map");
  if (scratch_bytes < minmax_scratch_bytes(n)) throw Error("depth_minmax: scratch too small");
  const cudaStream_t s = cudaStream_t(stream);
  const int blocks = int(std::min<size_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  minmax_blocks<<<blocks, kThreads, 0, s>>>(depth, n, static_cast<float2*>(scratch));
  check("depth min/max (blocks)");
  minmax_final<<<1, 32, 0, s>>>(static_cast<const float2*>(scratch), blocks, minmax);
  check("depth min/max (final)");
}

void depth_normalise(const float* raw, const float* minmax, float* d, size_t n, void* stream) {
  normalise<<<blocks_for(n), kThreads, 0, cudaStream_t(stream)>>>(raw, minmax, d, n);
  check("depth normalise");
}

void fill(float* d, size_t n, float value, void* stream) {
  fill_kernel<<<blocks_for(n), kThreads, 0, cudaStream_t(stream)>>>(d, n, value);
  check("fill");
}

void coc_map(const float* d, float* coc, size_t n, const Params& p, void* stream) {
  const Lens lens{p.aperture, p.max_radius, p.near_depth, p.far_depth, p.disparity};
  coc_kernel<<<blocks_for(n), kThreads, 0, cudaStream_t(stream)>>>(d, coc, n, lens, p.focus);
  check("CoC map");
}

}  // namespace satlab::gpu
