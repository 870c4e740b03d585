// The refiners `none` (core's bilinear resampling, bit for bit) and `guided` (the bilinear depth, missing
// values filled with the mean of the rest, through the GPU guided filter with the image as the guide,
// clamped to the input's range: core's refine_guided), and the depth statistics both these and the
// sample-based refiners use. Compiled with -fmad=false: the resampling's products stay rounded as core's.
// Bytes: none reads the depth and writes the output (4 B/px); guided adds the guide (12 B/px written,
// read by the filter) and the filter's own traffic (gpu/depth/guided_filter.cu).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/guided_filter.hpp"
#include "gpu/check.hpp"
#include "gpu/common/warp.cuh"
#include "gpu/depth/guided_filter_gpu.hpp"
#include "gpu/refine/refine_common.cuh"

namespace satlab::gpu::refine_detail {
namespace {

constexpr int kPartials = 256;  // blocks of the first statistics pass (one per thread of the second)

// Sum and count of the finite values, and their extremes with the index of each extreme's first
// occurrence: core takes std::min / std::max in row-major order, which keeps the first of equal values,
// so that lo and hi are the same float as core's, the sign of a zero included.
struct Partial {
  double sum;
  unsigned long long count;
  float lo, hi;
  unsigned long long lo_at, hi_at;
};

__device__ __forceinline__ Partial merge(Partial a, const Partial& b) {
  a.sum += b.sum, a.count += b.count;
  if (b.lo < a.lo || (b.lo == a.lo && b.lo_at < a.lo_at)) a.lo = b.lo, a.lo_at = b.lo_at;
  if (b.hi > a.hi || (b.hi == a.hi && b.hi_at < a.hi_at)) a.hi = b.hi, a.hi_at = b.hi_at;
  return a;
}

__device__ __forceinline__ Partial empty_partial() {
  return Partial{0.0, 0ull, INFINITY, -INFINITY, ~0ull, ~0ull};
}

// Block reduction of one Partial per thread (fixed order: the same sum every run).
__device__ Partial block_merge(Partial p) {
  __shared__ Partial part[kThreads / 32];
  p = warp::reduce(p, [](const Partial& a, const Partial& b) { return merge(a, b); });
  if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = p;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < kThreads / 32; ++w) p = merge(p, part[w]);
  return p;  // thread 0's is the block's
}

__global__ void stats_partial(const float* __restrict__ v, size_t n, Partial* __restrict__ out) {
  Partial p = empty_partial();
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads) {
    const float x = v[i];
    if (!isfinite(x)) continue;
    p.sum += double(x), ++p.count;
    if (x < p.lo) p.lo = x, p.lo_at = i;  // i grows: the first of equal values stays
    if (x > p.hi) p.hi = x, p.hi_at = i;
  }
  p = block_merge(p);
  if (threadIdx.x == 0) out[blockIdx.x] = p;
}

// The range's tolerances exactly as core's make_grid forms them (float, no contraction).
__global__ void stats_final(const Partial* __restrict__ part, int parts, Span* __restrict__ span,
                            float* __restrict__ fill_out) {
  Partial p = empty_partial();
  if (int(threadIdx.x) < parts) p = part[threadIdx.x];
  p = block_merge(p);
  if (threadIdx.x != 0) return;
  Span s;
  s.lo = p.lo, s.hi = p.hi;
  const float t = refine::kFlatTol * (p.hi - p.lo);
  s.tol = isfinite(t) ? t : 0.f;
  s.polish_tol = isfinite(p.hi - p.lo) ? refine::kPolishTol * (p.hi - p.lo) : 0.f;
  s.fill = p.count ? float(p.sum / double(p.count)) : __int_as_float(0x7fc00000);
  *span = s;
  if (fill_out) *fill_out = s.fill;
}

__global__ void resample_kernel(const float* __restrict__ d, int iw, int ih, float* __restrict__ out, int w,
                                int h) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  out[size_t(y) * size_t(w) + size_t(x)] = bilinear(d, iw, ih, w, h, x, y);
}

// p: the depth at the image's size, missing values filled; the guide: the image's RGB / 255 as floats.
__global__ void guided_inputs(const uchar4* __restrict__ image, const float* __restrict__ d, int iw, int ih,
                              int w, int h, const Span* __restrict__ span, float* __restrict__ p,
                              float* __restrict__ guide) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const size_t i = size_t(y) * size_t(w) + size_t(x);
  float v = (iw == w && ih == h) ? d[i] : bilinear(d, iw, ih, w, h, x, y);
  if (!isfinite(v)) v = span->fill;
  p[i] = v;
  const uchar4 c = image[i];
  guide[3 * i + 0] = float(c.x) / 255.f;
  guide[3 * i + 1] = float(c.y) / 255.f;
  guide[3 * i + 2] = float(c.z) / 255.f;
}

// std::clamp(q, lo, hi).
__global__ void clamp_kernel(float* __restrict__ q, size_t n, const Span* __restrict__ span) {
  const size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x;
  if (i >= n) return;
  const float lo = span->lo, hi = span->hi, v = q[i];
  q[i] = v < lo ? lo : (hi < v ? hi : v);
}

dim3 grid2d(int w, int h, dim3 block) {
  return dim3(unsigned((w + int(block.x) - 1) / int(block.x)),
              unsigned((h + int(block.y) - 1) / int(block.y)));
}

}  // namespace

std::string size_context(const RefineArgs& a) {
  return std::to_string(a.depth_width) + "x" + std::to_string(a.depth_height) + " depth to " +
         std::to_string(a.width) + "x" + std::to_string(a.height);
}

void check_args(const RefineArgs& a, const char* who) {
  if (a.width <= 0 || a.height <= 0 || a.depth_width <= 0 || a.depth_height <= 0)
    throw Error(std::string("refine ") + who + ": empty size (" + size_context(a) + ")");
  if (!a.image || !a.depth || !a.out) throw Error(std::string("refine ") + who + ": a null device pointer");
}

void depth_stats(const float* v, size_t n, Span* span, float* fill_out, cudaStream_t st,
                 const std::string& ctx) {
  Scratch part(kPartials * sizeof(Partial), st);
  const unsigned blocks = blocks_for(n, kPartials);
  stats_partial<<<blocks, kThreads, 0, st>>>(v, n, part.as<Partial>());
  SATLAB_LAUNCHED("refine stats_partial", ctx);
  stats_final<<<1, kThreads, 0, st>>>(part.as<Partial>(), int(blocks), span, fill_out);
  SATLAB_LAUNCHED("refine stats_final", ctx);
}

void resample(const float* d, int iw, int ih, float* out, int w, int h, cudaStream_t st,
              const std::string& ctx) {
  if (iw == w && ih == h) {
    SATLAB_CUDA(cudaMemcpyAsync(out, d, size_t(w) * size_t(h) * sizeof(float), cudaMemcpyDeviceToDevice, st),
                ctx);
    return;
  }
  const dim3 block(32, 8);
  resample_kernel<<<grid2d(w, h, block), block, 0, st>>>(d, iw, ih, out, w, h);
  SATLAB_LAUNCHED("refine resample", ctx);
}

void refine_none(const RefineArgs& a) {
  check_args(a, "none");
  if (a.phase) a.phase("resample");
  resample(a.depth, a.depth_width, a.depth_height, a.out, a.width, a.height, cudaStream_t(a.stream),
           size_context(a));
}

void refine_guided(const RefineArgs& a) {
  check_args(a, "guided");
  const cudaStream_t st = cudaStream_t(a.stream);
  const std::string ctx = size_context(a);
  const size_t n = size_t(a.width) * size_t(a.height);
  if (a.phase) a.phase("inputs");
  Scratch span(sizeof(Span), st), p(n * sizeof(float), st), guide(3 * n * sizeof(float), st);
  depth_stats(a.depth, size_t(a.depth_width) * size_t(a.depth_height), span.as<Span>(),
              a.guided_offsets ? a.guided_offsets + 4 : nullptr, st, ctx);
  const dim3 block(32, 8);
  guided_inputs<<<grid2d(a.width, a.height, block), block, 0, st>>>(
      static_cast<const uchar4*>(a.image), a.depth, a.depth_width, a.depth_height, a.width, a.height,
      span.as<Span>(), p.as<float>(), guide.as<float>());
  SATLAB_LAUNCHED("refine guided inputs", ctx);
  GuidedDeviceArgs g;
  g.guide = guide.as<float>();
  g.guide_channels = 3;
  g.p = p.as<float>();
  g.q = a.out;
  g.width = a.width;
  g.height = a.height;
  g.params = GuidedParams{};
  g.stream = a.stream;
  g.offsets_out = a.guided_offsets;
  if (a.phase) g.phase = [&a](const char* s) { a.phase(s); };
  guided_filter(g);
  if (a.phase) a.phase("clamp");
  clamp_kernel<<<blocks_for(n, size_t(1) << 31), kThreads, 0, st>>>(a.out, n, span.as<Span>());
  SATLAB_LAUNCHED("refine guided clamp", ctx);
}

}  // namespace satlab::gpu::refine_detail
