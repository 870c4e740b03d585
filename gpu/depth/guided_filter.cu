// Guided filter on the GPU (He, Sun and Tang 2010; reference core/guided_filter.cpp), five stages:
//   stack         centred guide and p, their products (colour: 13 floats in groups of 4+4+4+1; gray: 4),
//                 from the offsets (the mean of every 8th row); by default the groups are formed in
//                 the loads of sat_lookback_2d's float tiles (guided_stack_sat.cu) and never stored, so
//                 this stage is the offsets alone
//   sat stack     the float SAT of each group (F32, 4 or 1 channels): by default sat_lookback_2d's
//                 tiles with the stack load policy; with GuidedDeviceArgs::sat, that builder
//   coefficients  per pixel the window means (4 taps, float64 differences times the reciprocal of the
//                 clipped count), the 3x3 solve (Sigma + eps U) a = cov in float64 by the adjugate, b;
//                 stored as float (4 or 2 channels)
//   sat coefficients  the SAT of a and b
//   output        q = mean(a) . (I - offset) + mean(b) + offset(p), float64, stored as float
// Every float operation that forms a stored value is an explicitly rounded intrinsic (no contraction;
// gpu/depth/guided_stack.cuh), so the stacks equal core's bit for bit and only the SATs' rounding (and
// float64 last bits, inside the bound's slack) separates the two: the bound is core's guided_filter_bound
// with the builders' kFloatSatRelBound. The cost is independent of the radius (4 taps per mean); traffic
// per pixel, colour, fused: the 3 4-channel builds read the guide and p (16 B each) and write 48, group
// 0's also writes I22 (4 B) for the 1-channel build, which reads it back (4 B, mostly from L2; where the
// guide's rows are not 16-byte multiples it reads the guide instead, 12 B) and writes 4, the
// coefficients read 52 x 4 taps (mostly cache hits) and write 16, the second SAT 16 + 16, the output
// reads 16 x 4 taps + 12 + writes 4 (not fused: + 16 read and 52 written by the stack kernel).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/common/warp.cuh"
#include "gpu/depth/guided_filter_gpu.hpp"
#include "gpu/depth/guided_stack.cuh"
#include "gpu/device.hpp"
#include "gpu/sat/sat.hpp"

namespace satlab::gpu {
namespace {

using namespace guided_detail;

constexpr int kThreads = 256;
constexpr int kOffsetRowStep = 8;  // the offsets sample every 8th row

unsigned blocks_for(size_t n) {
  return unsigned(std::min<size_t>((n + kThreads - 1) / kThreads, 65535 * 16));
}

// Sums of the sampled rows: acc[0..2] guide (colour) or acc[0] luma/gray, acc[3] p.
__global__ void offset_sums(const float* __restrict__ guide, int gc, bool gray, const float* __restrict__ p,
                            int w, int rows, double* __restrict__ acc) {
  double s[4] = {0, 0, 0, 0};
  const size_t n = size_t(w) * size_t(rows);
  for (size_t k = blockIdx.x * size_t(kThreads) + threadIdx.x; k < n; k += size_t(gridDim.x) * kThreads) {
    const size_t i = (k / size_t(w)) * kOffsetRowStep * size_t(w) + k % size_t(w);
    const float* g = guide + i * size_t(gc);
    if (gc == 1)
      s[0] += g[0];
    else if (gray)
      s[0] += luma(g);
    else
      s[0] += g[0], s[1] += g[1], s[2] += g[2];
    s[3] += p[i];
  }
  // Warp sums, then the block's: 4 atomics per block (not per warp: same-address float64 atomics queue).
  __shared__ double part[kThreads / 32][4];
  for (int c = 0; c < 4; ++c) {
    const double v = warp::reduce(s[c]);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32][c] = v;
  }
  __syncthreads();
  if (threadIdx.x < 4) {
    double v = 0;
    for (int q = 0; q < kThreads / 32; ++q) v += part[q][threadIdx.x];
    if (v != 0.0) atomicAdd(acc + threadIdx.x, v);
  }
}

template <int NC>
__global__ void stack_kernel(const float* __restrict__ guide, int gc, const float* __restrict__ p, size_t n,
                             const double* __restrict__ acc, double count, float4* __restrict__ s0,
                             float4* __restrict__ s1, float4* __restrict__ s2, float* __restrict__ s3,
                             float* __restrict__ offsets_out) {
  const Offsets o = offsets_of(acc, count);
  if (offsets_out && blockIdx.x == 0 && threadIdx.x == 0) {
    offsets_out[0] = o.g[0], offsets_out[1] = NC == 3 ? o.g[1] : 0.f, offsets_out[2] = NC == 3 ? o.g[2] : 0.f;
    offsets_out[3] = o.p;
  }
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads) {
    float I[3];
    centred_guide<NC>(guide, gc, i, o, I);
    const float pc = __fsub_rn(p[i], o.p);
    s0[i] = stack4<NC>(I, pc, 0);
    if (NC == 3) {
      s1[i] = stack4<NC>(I, pc, 1);
      s2[i] = stack4<NC>(I, pc, 2);
      s3[i] = __fmul_rn(I[2], I[2]);
    }
  }
}

struct Window {
  int x0, y0, x1, y1;  // x0, y0: one before the box (-1: the image's edge)
  double inv_n;
};
__device__ __forceinline__ Window window(int x, int y, int r, int w, int h) {
  Window b;
  b.x0 = max(x - r, 0) - 1;
  b.y0 = max(y - r, 0) - 1;
  b.x1 = int(min(long(x) + r, long(w - 1)));
  b.y1 = int(min(long(y) + r, long(h - 1)));
  b.inv_n = 0;  // set by the caller, which divides (as the reference does)
  return b;
}
__device__ __forceinline__ double count(const Window& b) {
  return double(b.x1 - b.x0) * double(b.y1 - b.y0);
}

// Box sums of a float4 / float SAT, float64 differences.
struct D4 {
  double x, y, z, w;
};
__device__ __forceinline__ D4 box4(const float4* __restrict__ s, int w, const Window& b) {
  auto at = [&](int x, int y) {
    return (x < 0 || y < 0) ? make_float4(0.f, 0.f, 0.f, 0.f) : s[size_t(y) * size_t(w) + size_t(x)];
  };
  const float4 A = at(b.x1, b.y1), B = at(b.x0, b.y1), C = at(b.x1, b.y0), D = at(b.x0, b.y0);
  return D4{double(A.x) - double(B.x) - double(C.x) + double(D.x),
            double(A.y) - double(B.y) - double(C.y) + double(D.y),
            double(A.z) - double(B.z) - double(C.z) + double(D.z),
            double(A.w) - double(B.w) - double(C.w) + double(D.w)};
}
__device__ __forceinline__ double box1(const float* __restrict__ s, int w, const Window& b) {
  auto at = [&](int x, int y) {
    return (x < 0 || y < 0) ? 0.0 : double(s[size_t(y) * size_t(w) + size_t(x)]);
  };
  return at(b.x1, b.y1) - at(b.x0, b.y1) - at(b.x1, b.y0) + at(b.x0, b.y0);
}
__device__ __forceinline__ double2 box2(const float2* __restrict__ s, int w, const Window& b) {
  auto at = [&](int x, int y) {
    return (x < 0 || y < 0) ? make_float2(0.f, 0.f) : s[size_t(y) * size_t(w) + size_t(x)];
  };
  const float2 A = at(b.x1, b.y1), B = at(b.x0, b.y1), C = at(b.x1, b.y0), D = at(b.x0, b.y0);
  return make_double2(double(A.x) - double(B.x) - double(C.x) + double(D.x),
                      double(A.y) - double(B.y) - double(C.y) + double(D.y));
}

// Quotients by d as products with r = 1 / d, formed once: a float64 division costs ~12 float64
// instructions and the colour coefficients had 16 per pixel (0.263 -> 0.225 ms, H200). The
// quotients differ from the reference's divisions by an ulp of float64, inside the bound's float64 slack
// (core/guided_filter.cpp).
struct Recip {
  double r;
  __device__ __forceinline__ explicit Recip(double d) : r(1.0 / d) {}
  __device__ __forceinline__ double of(double q) const { return q * r; }
};

__global__ void coefficients_color(const float4* __restrict__ s0, const float4* __restrict__ s1,
                                   const float4* __restrict__ s2, const float* __restrict__ s3, int w, int h,
                                   int r, double eps, float4* __restrict__ ab) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const Window b = window(x, y, r, w, h);
  const Recip n(count(b));
  const D4 m0 = box4(s0, w, b), m1 = box4(s1, w, b), m2 = box4(s2, w, b);
  const double m3 = box1(s3, w, b);
  const double mi0 = n.of(m0.x), mi1 = n.of(m0.y), mi2 = n.of(m0.z), mp = n.of(m0.w);
  const double c0 = n.of(m1.x) - mi0 * mp, c1 = n.of(m1.y) - mi1 * mp, c2 = n.of(m1.z) - mi2 * mp;
  const double a00 = n.of(m1.w) - mi0 * mi0 + eps, a01 = n.of(m2.x) - mi0 * mi1, a02 = n.of(m2.y) - mi0 * mi2;
  const double a11 = n.of(m2.z) - mi1 * mi1 + eps, a12 = n.of(m2.w) - mi1 * mi2, a22 = n.of(m3) - mi2 * mi2 + eps;
  const double i00 = a11 * a22 - a12 * a12, i01 = a02 * a12 - a01 * a22, i02 = a01 * a12 - a02 * a11;
  const double i11 = a00 * a22 - a02 * a02, i12 = a01 * a02 - a00 * a12, i22 = a00 * a11 - a01 * a01;
  const Recip det(a00 * i00 + a01 * i01 + a02 * i02);
  const double k0 = det.of(i00 * c0 + i01 * c1 + i02 * c2);
  const double k1 = det.of(i01 * c0 + i11 * c1 + i12 * c2);
  const double k2 = det.of(i02 * c0 + i12 * c1 + i22 * c2);
  ab[size_t(y) * size_t(w) + size_t(x)] =
      make_float4(float(k0), float(k1), float(k2), float(mp - (k0 * mi0 + k1 * mi1 + k2 * mi2)));
}
__global__ void coefficients_gray(const float4* __restrict__ s0, int w, int h, int r, double eps,
                                  float2* __restrict__ ab) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const Window b = window(x, y, r, w, h);
  const Recip n(count(b));
  const D4 m = box4(s0, w, b);
  const double mi = n.of(m.x), mp = n.of(m.y);
  const double a = (n.of(m.z) - mi * mp) / ((n.of(m.w) - mi * mi) + eps);
  ab[size_t(y) * size_t(w) + size_t(x)] = make_float2(float(a), float(mp - a * mi));
}

template <int NC>
__global__ void output_kernel(const void* __restrict__ ab_sat, const float* __restrict__ guide, int gc, int w,
                              int h, int r, const double* __restrict__ acc, double cnt,
                              float* __restrict__ q) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const Offsets o = offsets_of(acc, cnt);
  const Window b = window(x, y, r, w, h);
  const Recip n(count(b));
  const size_t i = size_t(y) * size_t(w) + size_t(x);
  float I[3];
  centred_guide<NC>(guide, gc, i, o, I);
  double v;
  if (NC == 1) {
    const double2 m = box2(static_cast<const float2*>(ab_sat), w, b);
    v = n.of(m.y) + double(o.p);
    v += n.of(m.x) * double(I[0]);
  } else {
    const D4 m = box4(static_cast<const float4*>(ab_sat), w, b);
    v = n.of(m.w) + double(o.p);
    v += n.of(m.x) * double(I[0]);
    v += n.of(m.y) * double(I[1]);
    v += n.of(m.z) * double(I[2]);
  }
  q[i] = float(v);
}

// The offsets alone (the fused path's stand-in for the stack kernel's first thread).
__global__ void write_offsets(const double* __restrict__ acc, double count, int nc, float* __restrict__ out) {
  const Offsets o = offsets_of(acc, count);
  out[0] = o.g[0], out[1] = nc == 3 ? o.g[1] : 0.f, out[2] = nc == 3 ? o.g[2] : 0.f, out[3] = o.p;
}

}  // namespace

const Variant* guided_sat_builder(const std::string& name) {
  if (name.empty()) return nullptr;
  for (const Variant& v : variants())
    if (v.family == Family::Sat && v.name == name &&
        std::find(v.dtypes.begin(), v.dtypes.end(), DType::F32) != v.dtypes.end())
      return &v;
  throw Error("guided filter: no registered SAT builder named " + name + " takes float");
}

void guided_filter(const GuidedDeviceArgs& a) {
  validate(a.params);
  const int w = a.width, h = a.height, gc = a.guide_channels;
  if (w <= 0 || h <= 0) throw Error("guided filter: empty image");
  if (gc != 1 && gc != 3 && gc != 4) throw Error("guided filter: guide must have 1, 3 or 4 channels");
  const size_t n = size_t(w) * size_t(h);
  if (a.sat && a.sat->refuses) {
    const std::string why = a.sat->refuses(n, DType::F32);
    if (!why.empty())
      throw Error("guided filter: " + a.sat->name + " refuses " + std::to_string(w) + "x" + std::to_string(h) +
                  ": " + why);
  }
  const int nc = (a.params.gray || gc == 1) ? 1 : 3;
  const cudaStream_t st = cudaStream_t(a.stream);
  const std::string ctx = std::to_string(w) + "x" + std::to_string(h) + (nc == 1 ? " gray" : " colour");
  auto phase = [&](const char* s) {
    if (a.phase) a.phase(s);
  };
  // Scratch: offsets accumulators, the stack and its SAT (13 floats, or 4), a and b and their SAT.
  // Groups of 4, 4, 4 and 1 channels (gray: one of 4), each starting on a 256-byte boundary as a
  // builder's own allocation would.
  const size_t pad = (n + 63) / 64 * 64;
  const size_t group[4] = {0, 4 * pad, 8 * pad, 12 * pad};
  const size_t stack_floats = nc == 1 ? 4 * pad : 13 * pad, ab_floats = nc == 1 ? 2 : 4;
  // By default the stack is formed in the SAT's tile loads (stack_group_sat): never stored.
  const bool fused = !a.sat;
  Scratch acc(4 * sizeof(double), st);
  Scratch stack(fused ? 0 : stack_floats * sizeof(float), st), stack_sat(stack_floats * sizeof(float), st);
  Scratch ab(n * ab_floats * sizeof(float), st), ab_sat(n * ab_floats * sizeof(float), st);
  const int rows = (h + kOffsetRowStep - 1) / kOffsetRowStep;
  const double cnt = double(rows) * double(w);

  phase("stack");
  SATLAB_CUDA(cudaMemsetAsync(acc.as<void>(), 0, 4 * sizeof(double), st), ctx);
  offset_sums<<<std::min(blocks_for(size_t(w) * size_t(rows)), 1024u), kThreads, 0, st>>>(
      a.guide, gc, nc == 1, a.p, w, rows, acc.as<double>());
  SATLAB_LAUNCHED("guided offsets", ctx);
  float* sf = stack.as<float>();
  float* ss = stack_sat.as<float>();
  float4 *g0 = reinterpret_cast<float4*>(sf + group[0]), *g1 = reinterpret_cast<float4*>(sf + group[1]),
         *g2 = reinterpret_cast<float4*>(sf + group[2]);
  float* g3 = sf + group[3];
  if (fused) {
    if (a.offsets_out) {
      write_offsets<<<1, 1, 0, st>>>(acc.as<double>(), cnt, nc, a.offsets_out);
      SATLAB_LAUNCHED("guided offsets out", ctx);
    }
  } else {
    if (nc == 1)
      stack_kernel<1><<<blocks_for(n), kThreads, 0, st>>>(a.guide, gc, a.p, n, acc.as<double>(), cnt, g0,
                                                          nullptr, nullptr, nullptr, a.offsets_out);
    else
      stack_kernel<3><<<blocks_for(n), kThreads, 0, st>>>(a.guide, gc, a.p, n, acc.as<double>(), cnt, g0,
                                                          g1, g2, g3, a.offsets_out);
    SATLAB_LAUNCHED("guided stack", ctx);
  }

  phase("sat stack");
  // Where the raw copies apply (a 3-channel guide, rows of 16-byte multiples), group 3 (I22) is written
  // by group 0's build as a 1-channel image (4 B per pixel, coalesced, the same rounded products) and
  // built right after it through the image path, mostly from L2: 0.055 -> 0.028 ms at 3840x2160 against
  // forming it in its own tile load from the guide (12 B per pixel at a 12-byte stride, through
  // registers). Elsewhere it is formed so.
  const bool raw = fused && gc == 3 && w % 4 == 0 && reinterpret_cast<uintptr_t>(a.guide) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(a.p) % 16 == 0;
  const bool side = raw && nc == 3;
  Scratch i22(side ? n * sizeof(float) : 0, st);
  auto build = [&](const float* in, float* out, int channels) {
    SatArgs s;
    s.in = in;
    s.out = out;
    s.width = w;
    s.height = h;
    s.channels = channels;
    s.dtype = DType::F32;
    s.stream = a.stream;
    if (a.sat)
      a.sat->sat(s);
    else
      sat_lookback_2d(s);
  };
  auto build_group = [&](int k, int channels) {
    if (!fused) return build(sf + group[k], ss + group[k], channels);
    SatArgs s;
    s.in = a.p;  // not read
    s.out = ss + group[k];
    s.width = w;
    s.height = h;
    s.channels = channels;
    s.dtype = DType::F32;
    s.stream = a.stream;
    StackSource src{a.guide, gc, nc, a.p, acc.as<double>(), cnt, k};
    src.raw = raw && channels == 4;
    if (k == 0 && side) src.side = i22.as<float>();
    stack_group_sat(s, src);
  };
  build_group(0, 4);
  if (side) build(i22.as<float>(), ss + group[3], 1);
  if (nc == 3) {
    build_group(1, 4);
    build_group(2, 4);
    if (!side) build_group(3, 1);
  }

  phase("coefficients");
  // Blocks of a 256-pixel row segment: a warp's two tap columns, x - r - 1 and x + r, share more of their
  // lines in L1 than in 32 x 8 blocks (colour coefficients 0.227 -> 0.213 ms at r = 8; 64 and 128 wide
  // between; 512 x 1 slower, 0.216 -> 0.233: docs/performance.md, "Tried and lost").
  const dim3 block(kThreads, 1), grid(unsigned((w + kThreads - 1) / kThreads), unsigned(h));
  const int r = a.params.radius;
  const double eps = double(a.params.eps);
  if (nc == 1)
    coefficients_gray<<<grid, block, 0, st>>>(
        reinterpret_cast<const float4*>(ss), w, h, r, eps, ab.as<float2>());
  else
    coefficients_color<<<grid, block, 0, st>>>(
        reinterpret_cast<const float4*>(ss + group[0]), reinterpret_cast<const float4*>(ss + group[1]),
        reinterpret_cast<const float4*>(ss + group[2]), ss + group[3], w, h, r, eps, ab.as<float4>());
  SATLAB_LAUNCHED("guided coefficients", ctx);

  phase("sat coefficients");
  build(ab.as<float>(), ab_sat.as<float>(), int(ab_floats));

  phase("output");
  const auto out = nc == 1 ? output_kernel<1> : output_kernel<3>;
  out<<<grid, block, 0, st>>>(ab_sat.as<void>(), a.guide, gc, w, h, r, acc.as<double>(), cnt, a.q);
  SATLAB_LAUNCHED("guided output", ctx);
}

}  // namespace satlab::gpu
