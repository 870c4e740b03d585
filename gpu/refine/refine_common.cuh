// Pieces the GPU refiners share (gpu/refine/*.cu, each compiled with -fmad=false): core's bilinear
// resampling per pixel, the statistics of a depth map (its finite values' range, the sample grid's
// tolerances and mean) and the launch helpers.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/refine_pixel.hpp"
#include "core/variant.hpp"

namespace satlab::gpu::refine_detail {

constexpr int kThreads = 256;

inline unsigned blocks_for(size_t n, size_t cap = 65535) {
  const size_t b = (n + kThreads - 1) / kThreads;
  return unsigned(b < 1 ? 1 : (b > cap ? cap : b));
}

// core's resample_bilinear at output pixel (x, y) of width x height from iw x ih (not the same size:
// the caller copies then), the same float operations in the same order.
__device__ __forceinline__ float bilinear(const float* __restrict__ d, int iw, int ih, int width, int height,
                                          int x, int y) {
  const float sx = float(iw) / float(width), sy = float(ih) / float(height);
  float fy = (float(y) + 0.5f) * sy - 0.5f;
  fy = fy < 0.f ? 0.f : fy;                      // std::max(fy, 0.f)
  fy = float(ih - 1) < fy ? float(ih - 1) : fy;  // std::min(fy, ih - 1)
  const int y0 = int(fy), y1 = y0 + 1 < ih - 1 ? y0 + 1 : ih - 1;
  const float ty = fy - float(y0);
  float fx = (float(x) + 0.5f) * sx - 0.5f;
  fx = fx < 0.f ? 0.f : fx;
  fx = float(iw - 1) < fx ? float(iw - 1) : fx;
  const int x0 = int(fx), x1 = x0 + 1 < iw - 1 ? x0 + 1 : iw - 1;
  const float tx = fx - float(x0);
  const size_t r0 = size_t(y0) * size_t(iw), r1 = size_t(y1) * size_t(iw);
  const float top = d[r0 + size_t(x0)] * (1 - tx) + d[r0 + size_t(x1)] * tx;
  const float bot = d[r1 + size_t(x0)] * (1 - tx) + d[r1 + size_t(x1)] * tx;
  return top * (1 - ty) + bot * ty;
}

// What the refiners need to know of a depth map's finite values (device memory, written by
// depth_stats): their range, the sample grid's tolerances as core's make_grid forms them, and their mean
// as core's refine_guided fills missing depth with (NaN when there is none).
struct Span {
  float lo, hi;
  float tol, polish_tol;
  float fill;
};

// Fills *span from the n floats at v (device), on stream; `fill_out`, when not null, also receives the
// fill value (a device float). Two launches: block partials, then one block.
void depth_stats(const float* v, size_t n, Span* span, float* fill_out, cudaStream_t stream,
                 const std::string& ctx);

// out (width x height) = core's resample_bilinear of d (iw x ih); a copy where the sizes agree.
void resample(const float* d, int iw, int ih, float* out, int width, int height, cudaStream_t stream,
              const std::string& ctx);

// The sample-based refiners' launch (wmedian, jbu, snap; gpu/refine/refine_samples.cu).
void refine_samples(const RefineArgs& a, refine::Reduce r);
// none and guided (gpu/refine/refine_guided.cu).
void refine_none(const RefineArgs& a);
void refine_guided(const RefineArgs& a);

std::string size_context(const RefineArgs& a);
void check_args(const RefineArgs& a, const char* who);

}  // namespace satlab::gpu::refine_detail
