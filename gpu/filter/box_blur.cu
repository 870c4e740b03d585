// O(1) variable box blur through an RGBA uint32 SAT (Crow 1984, "Summed-area tables for texture
// mapping"): per pixel the box of radius round(|coc|) (or one fixed radius) clipped to the image,
// 4 taps of 16 bytes (all four channels at once), each channel (sum + area/2) / area in uint32, exactly
// as core's box_blur / dof_blur. Wrap-around differences are exact because every true box sum of
// 8-bit data over at most 4095^2 pixels, plus area/2, fits in 32 bits.
// Fractional radius (core's dof_blur_fractional): the boxes floor(|coc|) and floor(|coc|) + 1 (8 taps),
// their means blended by the fraction in float with the _rn intrinsics (no FMA), as the CPU does.
// Bytes (minimum): SAT 16 B + CoC 4 B read, 4 B written per pixel. The taps are served by L1/L2: a
// smooth CoC gives each warp 4 (8) runs of contiguous 16-byte taps; a per-pixel random CoC scatters them,
// one 32-byte sector per tap (128 B/px through L2).
// dof_gather_box, the gather_box DoF mode: the SAT of its input through the registry's builder (kept in its
// workspace while the input stays), then this blur.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

__device__ __forceinline__ uint4 tap(const uint4* __restrict__ sat, int w, int x, int y) {
  return x < 0 || y < 0 ? make_uint4(0, 0, 0, 0) : __ldg(sat + size_t(y) * size_t(w) + size_t(x));
}

// Channel sums over the box of radius r around (x, y), clipped; returns the clipped area.
__device__ __forceinline__ uint32_t box_sums(const uint4* __restrict__ sat, int w, int h, int x, int y, int r,
                                             uint4& s) {
  const int x0 = max(x - r, 0) - 1, x1 = min(x + r, w - 1), y0 = max(y - r, 0) - 1, y1 = min(y + r, h - 1);
  const uint4 a = tap(sat, w, x1, y1), b = tap(sat, w, x0, y1), c = tap(sat, w, x1, y0),
              d = tap(sat, w, x0, y0);
  s = make_uint4(a.x - b.x - c.x + d.x, a.y - b.y - c.y + d.y, a.z - b.z - c.z + d.z, a.w - b.w - c.w + d.w);
  return uint32_t(x1 - x0) * uint32_t(y1 - y0);
}

__device__ __forceinline__ uchar4 rounded_mean(const uint4& s, uint32_t area) {
  const uint32_t half = area / 2;
  return make_uchar4((s.x + half) / area, (s.y + half) / area, (s.z + half) / area, (s.w + half) / area);
}

// m0 + t * (m1 - m0) with m_i = float(s_i) * (1 / area_i), every operation rounded to nearest, then
// (int)(v + 0.5): dof_blur_fractional's sequence.
__device__ __forceinline__ uint8_t blend(uint32_t s0, float inv0, uint32_t s1, float inv1, float t) {
  const float m0 = __fmul_rn(__uint2float_rn(s0), inv0), m1 = __fmul_rn(__uint2float_rn(s1), inv1);
  const float v = __fadd_rn(m0, __fmul_rn(t, __fsub_rn(m1, m0)));
  return uint8_t(__float2int_rz(__fadd_rn(v, 0.5f)));
}

enum class Mode { Box, Dof, DofFractional };

template <Mode M>
__global__ void __launch_bounds__(256)
    blur_kernel(const uint4* __restrict__ sat, const float* __restrict__ coc, int radius, int w, int h,
                uchar4* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int r = radius;
  float t = 0.f;
  if (M != Mode::Box) {
    const float a = fabsf(__ldg(coc + size_t(y) * w + x));
    if (!(a < float(kMaxBlurRadius))) {  // NaN -> 0, else clamped to kMaxBlurRadius
      r = isnan(a) ? 0 : kMaxBlurRadius;
    } else if (M == Mode::Dof) {
      r = int(roundf(a));  // blur_radius(): round half away from zero
    } else {
      const float f = floorf(a);  // fractional_radius()
      r = int(f), t = __fsub_rn(a, f);
    }
  }
  uint4 s0;
  const uint32_t area0 = box_sums(sat, w, h, x, y, r, s0);
  if (M != Mode::DofFractional || t == 0.f) {
    out[size_t(y) * w + x] = rounded_mean(s0, area0);
    return;
  }
  uint4 s1;
  const uint32_t area1 = box_sums(sat, w, h, x, y, r + 1, s1);
  const float inv0 = __frcp_rn(__uint2float_rn(area0)), inv1 = __frcp_rn(__uint2float_rn(area1));
  out[size_t(y) * w + x] = make_uchar4(blend(s0.x, inv0, s1.x, inv1, t), blend(s0.y, inv0, s1.y, inv1, t),
                                       blend(s0.z, inv0, s1.z, inv1, t), blend(s0.w, inv0, s1.w, inv1, t));
}

// Thread-block shape 32x8: 16x16, 64x4, 32x4, 128x2 and 8x32 measured no faster on smooth CoC, 16x16 8%
// faster on random CoC but 13% slower for the box blur (docs/performance.md, "Tried and lost").
constexpr unsigned kBlockW = 32, kBlockH = 8;

}  // namespace

void blur_rgba8(const uint32_t* sat, const float* coc, int radius, int w, int h, uint8_t* out, void* stream,
                bool fractional) {
  const dim3 block(kBlockW, kBlockH),
             grid((unsigned(w) + block.x - 1) / block.x, (unsigned(h) + block.y - 1) / block.y);
  const auto* s = reinterpret_cast<const uint4*>(sat);
  auto* o = reinterpret_cast<uchar4*>(out);
  const cudaStream_t st = cudaStream_t(stream);
  if (coc && fractional)
    blur_kernel<Mode::DofFractional><<<grid, block, 0, st>>>(s, coc, 0, w, h, o);
  else if (coc)
    blur_kernel<Mode::Dof><<<grid, block, 0, st>>>(s, coc, 0, w, h, o);
  else
    blur_kernel<Mode::Box><<<grid, block, 0, st>>>(s, nullptr, min(max(radius, 0), kMaxBlurRadius), w, h, o);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw Error("blur of " + std::to_string(w) + "x" + std::to_string(h) + ": " + cudaGetErrorString(e));
}

void dof_gather_box(const DofMode&, const DofArgs& a) {
  BoxSatCache& c = static_cast<DofWorkspace*>(a.workspace)->box;
  const auto phase = [&](const char* name) {
    if (a.stage) a.stage(name);
  };
  const bool kept = !a.rebuild && a.input_id != 0 && a.input_id == c.input && a.width == c.width &&
                    a.height == c.height && a.sat == c.builder;
  const size_t n = size_t(a.width) * size_t(a.height);
  void* table = c.borrowed && c.borrowed_bytes >= n * 16 ? c.borrowed : nullptr;
  if (!kept) {
    c.input = 0;  // until this one is built
    if (!table) grow(c.sat, n * 16, "the gather_box SAT"), table = c.sat.p;
    phase("sat");
    SatArgs s;
    s.in = a.image, s.out = table, s.width = a.width, s.height = a.height, s.channels = 4;
    s.dtype = DType::RGBA8, s.stream = a.stream;
    a.sat->sat(s);
    c.input = a.input_id, c.width = a.width, c.height = a.height, c.builder = a.sat;
  }
  phase("blur");
  if (!table) table = c.sat.p;
  blur_rgba8(static_cast<const uint32_t*>(table), static_cast<const float*>(a.coc), 0, a.width, a.height,
             static_cast<uint8_t*>(a.out), a.stream, a.params->fractional_radius);
}

}  // namespace satlab::gpu
