// Depth normalisation ((raw - min) / range; the min and max come from the selected reduction variant, see
// gpu/pipeline.cu) and the thin-lens circle of confusion, bit-identical to core's normalise_depth /
// coc_from_depth: the normalisation's float operations are explicitly rounded intrinsics, and the CoC is
// core/coc_pixel.hpp's per-pixel code, compiled with -fmad=false (gpu/CMakeLists.txt) as core is without
// contraction.
// Bytes: normalise reads 4 and writes 4; CoC reads 4 and writes 4 (as float4).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/coc_pixel.hpp"
#include "core/dof.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kHistThreads = 1024;  // the histogram kernel: 2 blocks of 1024 threads per SM

void check(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}

unsigned blocks_for(size_t n) { return unsigned(std::min<size_t>((n + kThreads - 1) / kThreads, 65535 * 16)); }

__device__ __forceinline__ float normalised(float raw, float lo, float range) {
  return range > 0.f ? __fdiv_rn(__fsub_rn(raw, lo), range) : 0.f;
}

__global__ void normalise(const float* __restrict__ raw, const float* __restrict__ mm, float* __restrict__ d,
                          size_t n) {
  const float lo = mm[0], range = __fsub_rn(mm[1], mm[0]);
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads)
    d[i] = normalised(raw[i], lo, range);
}

// The normalisation and the depth histogram in one pass: per-block counts in shared memory (each warp's
// lanes with equal bins add once), then the block's non-zero bins added to the global histogram.
__global__ void normalise_histogram(const float* __restrict__ raw, const float* __restrict__ mm,
                                    float* __restrict__ d, size_t n, uint32_t* __restrict__ hist) {
  __shared__ uint32_t bins[kDepthBins + 1];
  for (int b = threadIdx.x; b <= kDepthBins; b += kHistThreads) bins[b] = 0u;
  __syncthreads();
  const float lo = mm[0], range = __fsub_rn(mm[1], mm[0]);
  const size_t stride = size_t(gridDim.x) * kHistThreads;
  for (size_t base = blockIdx.x * size_t(kHistThreads); base < n; base += stride) {
    const size_t i = base + threadIdx.x;
    const bool in = i < n;
    const unsigned mask = __ballot_sync(0xffffffffu, in);
    if (!in) continue;
    const float v = normalised(raw[i], lo, range);
    d[i] = v;
    const int b = depth_bin(v);
    const unsigned peers = __match_any_sync(mask, b);
    if ((threadIdx.x & 31) == unsigned(__ffs(peers) - 1)) atomicAdd(&bins[b], unsigned(__popc(peers)));
  }
  __syncthreads();
  for (int b = threadIdx.x; b <= kDepthBins; b += kHistThreads)
    if (bins[b]) atomicAdd(hist + b, bins[b]);
}

__global__ void fill_kernel(float* __restrict__ d, size_t n, float value) {
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads) d[i] = value;
}

// 4 pixels per thread as one float4 load and store (both pointers 16-byte aligned, as the pipeline's buffers
// are): a pixel per thread kept too few loads in flight (33 us at 4K, half the copy bandwidth, measured); the
// tail of n mod 4 pixels by the first threads.
__global__ void coc_kernel(const float4* __restrict__ d, float4* __restrict__ coc, size_t n, dof::Lens p,
                           dof::FocusBand band) {
  const size_t quads = n / 4, stride = size_t(gridDim.x) * kThreads;
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < quads; i += stride) {
    const float4 v = d[i];
    coc[i] = make_float4(dof::coc_of(v.x, p, band), dof::coc_of(v.y, p, band), dof::coc_of(v.z, p, band),
                         dof::coc_of(v.w, p, band));
  }
  const size_t t = blockIdx.x * size_t(kThreads) + threadIdx.x;
  if (t < n % 4) {
    const size_t i = quads * 4 + t;
    reinterpret_cast<float*>(coc)[i] = dof::coc_of(reinterpret_cast<const float*>(d)[i], p, band);
  }
}

}  // namespace

void depth_normalise(const float* raw, const float* minmax, float* d, size_t n, void* stream, uint32_t* hist) {
  const cudaStream_t st = cudaStream_t(stream);
  if (!hist) {
    normalise<<<blocks_for(n), kThreads, 0, st>>>(raw, minmax, d, n);
    check("depth normalise");
    return;
  }
  if (cudaMemsetAsync(hist, 0, (kDepthBins + 1) * sizeof(uint32_t), st) != cudaSuccess) check("depth histogram");
  // Two blocks per SM (full occupancy): each block flushes up to kDepthBins + 1 counts.
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    check("depth histogram");
  const unsigned blocks = unsigned(std::min<size_t>((n + kHistThreads - 1) / kHistThreads, size_t(std::max(sms, 1)) * 2));
  normalise_histogram<<<std::max(blocks, 1u), kHistThreads, 0, st>>>(raw, minmax, d, n, hist);
  check("depth normalise and histogram");
}

void fill(float* d, size_t n, float value, void* stream) {
  fill_kernel<<<blocks_for(n), kThreads, 0, cudaStream_t(stream)>>>(d, n, value);
  check("fill");
}

void coc_map(const float* d, float* coc, size_t n, const Params& p, void* stream) {
  const dof::Lens lens = lens_of(p);
  if ((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(coc)) % 16 != 0)
    throw Error("CoC map: the depth and CoC buffers must be 16-byte aligned");
  coc_kernel<<<blocks_for(std::max<size_t>(n / 4, 1)), kThreads, 0, cudaStream_t(stream)>>>(
      reinterpret_cast<const float4*>(d), reinterpret_cast<float4*>(coc), n, lens, focus_band_of(p));
  check("CoC map");
}

}  // namespace satlab::gpu
