// O(1) variable box blur through an RGBA uint32 SAT (Crow 1984, "Summed-area tables for texture
// mapping"): per pixel the box of radius round(|coc|) (or one fixed radius) clipped to the image,
// 4 taps of 16 bytes (all four channels at once), each channel (sum + area/2) / area in uint32, exactly
// as core's box_blur / dof_blur. Wrap-around differences are exact because every true box sum of
// 8-bit data over at most 4095^2 pixels, plus area/2, fits in 32 bits.
// Bytes (minimum): SAT 16 B + CoC 4 B read, 4 B written per pixel; the taps mostly hit L1/L2.
#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

__device__ __forceinline__ uint4 tap(const uint4* __restrict__ sat, int w, int x, int y) {
  return x < 0 || y < 0 ? make_uint4(0, 0, 0, 0) : __ldg(sat + size_t(y) * size_t(w) + size_t(x));
}

template <bool DOF>
__global__ void __launch_bounds__(256) blur_kernel(const uint4* __restrict__ sat, const float* __restrict__ coc,
                                                   int radius, int w, int h, uchar4* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int r = radius;
  if (DOF) {  // blur_radius(): round half away from zero, NaN -> 0, clamped to kMaxBlurRadius
    const float a = fabsf(coc[size_t(y) * w + x]);
    r = a < float(kMaxBlurRadius) ? int(roundf(a)) : (isnan(a) ? 0 : kMaxBlurRadius);
  }
  const int x0 = max(x - r, 0), x1 = min(x + r, w - 1), y0 = max(y - r, 0), y1 = min(y + r, h - 1);
  const uint32_t area = uint32_t(x1 - x0 + 1) * uint32_t(y1 - y0 + 1), half = area / 2;
  const uint4 a = tap(sat, w, x1, y1), b = tap(sat, w, x0 - 1, y1), c = tap(sat, w, x1, y0 - 1),
              d = tap(sat, w, x0 - 1, y0 - 1);
  const uint32_t s0 = a.x - b.x - c.x + d.x, s1 = a.y - b.y - c.y + d.y, s2 = a.z - b.z - c.z + d.z,
                 s3 = a.w - b.w - c.w + d.w;
  out[size_t(y) * w + x] = make_uchar4((s0 + half) / area, (s1 + half) / area, (s2 + half) / area, (s3 + half) / area);
}

}  // namespace

void blur_rgba8(const uint32_t* sat, const float* coc, int radius, int w, int h, uint8_t* out, void* stream) {
  const dim3 block(32, 8), grid((unsigned(w) + 31) / 32, (unsigned(h) + 7) / 8);
  const auto* s = reinterpret_cast<const uint4*>(sat);
  auto* o = reinterpret_cast<uchar4*>(out);
  if (coc)
    blur_kernel<true><<<grid, block, 0, cudaStream_t(stream)>>>(s, coc, 0, w, h, o);
  else
    blur_kernel<false><<<grid, block, 0, cudaStream_t(stream)>>>(s, nullptr, min(max(radius, 0), kMaxBlurRadius), w, h, o);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw Error("blur of " + std::to_string(w) + "x" + std::to_string(h) + ": " + cudaGetErrorString(e));
}

}  // namespace satlab::gpu
