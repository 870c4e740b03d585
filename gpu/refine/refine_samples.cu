// The sample-based refiners on the GPU (wmedian, jbu, snap; core/refine.cpp's make_grid -> make_samples ->
// refine_samples), equal to the CPU bit for bit: every value comes from core/refine_pixel.hpp's functions or
// from the same integer and float operations in the same order (compiled with -fmad=false).
//   grid     where the depth is near the image's size (needs_regrid): its bilinear resampling to the image
//            (skipped at the same size), then each kCell cell's mean (cell_sum, one thread per cell); then
//            the finite depths' range and the tolerances (two-pass reduction, refine_common.cuh)
//   samples  make_sample per grid sample; tables of the spatial weights of every (pixel offset, window
//            sample) pair, 16 x 16 x kWindowSamples (core's weight() without colour), and of every
//            column's and row's grid position
//   pixels   a block per 8 x 8 centre cells: their window samples (12 x 12) in shared memory, then each pixel
//            whose nearest sample lies in the tile computes its window's weights in row-major order
//            (refine_pixel's loop, restructured: the spatial part from the table, the colour part through a
//            32-bit division by reciprocal corrected to the exact quotient) and reduces them. wmedian keeps
//            its predictions and weights in registers and finds their weighted median by value with
//            passes that split the candidate values at their mean (no data moves; the value is the one
//            core's quickselect finds), stopping once the polish cannot depend on the rest; then polishes
//            in row-major order. Regridded depth with confidence then keeps its confident values
//            (keep_confident with the input and confidence at the image's size).
// Cost per pixel: kWindowSamples (49) weights (~25 instructions each); wmedian adds as many predictions
// and a few selection passes (2.3 on average on verify-like inputs, in a host emulation). Bytes: the
// image read twice (samples, pixels: 8 B/px), the depth read (and at the image's size, the grid written
// and read), the output written (4 B/px).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/refine_grid.hpp"
#include "core/refine_pixel.hpp"
#include "gpu/check.hpp"
#include "gpu/refine/refine_gpu.hpp"
#include "gpu/refine/refine_common.cuh"

namespace satlab::gpu::refine_detail {
namespace {

using refine::Reduce;
using refine::Sample;

constexpr int kWin = refine::kWindow;
constexpr int kWinSide = 2 * kWin + 1;
constexpr int kWinSamples = refine::kWindowSamples;
constexpr int kSub = refine::kSubSample;          // 16
constexpr int kTileCells = 8;                     // a block's centre cells per axis
constexpr int kTileSide = kTileCells + 2 * kWin;  // its window samples per axis
constexpr int kTileSamples = kTileSide * kTileSide;
constexpr int kOffsets = kSub * kSub;  // a pixel's (u, v) offset from its centre sample
constexpr int kPixThreads = 128;
constexpr int kBlockPixels = 8192;  // more pixels per tile are split over blocks
// The colour weight's division by reciprocal (div_floor) holds for num < 2^27 and den < 2^20.
static_assert(65536ull * 3 * refine::kColourSigma * refine::kColourSigma < (1ull << 27) &&
                  3 * refine::kColourSigma * refine::kColourSigma + 3 * 255 * 255 < (1 << 20),
              "kColourSigma too large for div_floor");

// One sample in the tile (its colour apart): depth (NaN: none, or outside the grid), slopes, base weight.
struct __align__(16) TileSample {
  float d, gx, gy;
  uint32_t base;
};

// floor(num / den) for num < 2^27 and 0 < den < 2^20: a quotient through the reciprocal (within 2^-6 of
// num / den below 2^16), corrected by one where the truncation missed.
__device__ __forceinline__ uint32_t div_floor(uint32_t num, uint32_t den) {
  uint32_t q = __float2uint_rz(__fdividef(float(num), float(den)));
  const int r = int(num) - int(q * den);
  if (r < 0)
    --q;
  else if (r >= int(den))
    ++q;
  return q;
}
__device__ __forceinline__ uint32_t square16(uint32_t q) {
  return uint32_t((uint64_t(q) * q) >> 16);
}

// core's colour kernel ((wc * wc) >> 16, wc = 65536 k2 / (k2 + dc2)), dc2 the squared distance from the
// pixel's RGB word to the nearer of the sample's two (its palette).
__device__ __forceinline__ uint32_t colour_weight(uint32_t prgb, uint2 srgb) {
  const uint32_t a = __vabsdiffu4(prgb, srgb.x), b = __vabsdiffu4(prgb, srgb.y);
  const uint32_t dc2 = min(__dp4a(a, a, 0u), __dp4a(b, b, 0u));
  constexpr uint32_t k2 = 3u * refine::kColourSigma * refine::kColourSigma;
  return square16(div_floor(65536u * k2, k2 + dc2));
}

// weight() of a window sample from its spatial part (the table) and colour: the same products and shifts.
__device__ __forceinline__ uint32_t sample_weight(uint32_t spatial, uint32_t prgb, uint2 srgb, uint32_t base,
                                                  bool colour) {
  const uint32_t w = colour ? uint32_t((uint64_t(spatial) * colour_weight(prgb, srgb)) >> 16) : spatial;
  return w * base;
}

// predict() of a tile sample at window offset (di, dj) from centre (ci, cj).
__device__ __forceinline__ float predict(const TileSample& t, int i, int j, int u, int v, float lo,
                                         float hi) {
  Sample s{};
  s.d = t.d, s.gx = t.gx, s.gy = t.gy;
  return refine::predict(s, i, j, u, v, lo, hi);
}

__device__ __forceinline__ uint32_t rgb_word(const uint8_t rgb[3]) {
  return uint32_t(rgb[0]) | uint32_t(rgb[1]) << 8 | uint32_t(rgb[2]) << 16;
}
__device__ __forceinline__ uint2 palette_words(const Sample& s) {
  return make_uint2(rgb_word(s.rgb[0]), rgb_word(s.rgb[1]));
}

__global__ void cells_kernel(const float* __restrict__ full, const float* __restrict__ full_conf, int W,
                             int H, int gw, int gh, float* __restrict__ gd, float* __restrict__ gc) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x), j = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= gw || j >= gh) return;
  const refine::CellSum s = refine::cell_sum(full, full_conf, W, H, gw, gh, i, j);
  const size_t k = size_t(j) * size_t(gw) + size_t(i);
  gd[k] = refine::cell_depth(s);
  if (gc) gc[k] = refine::cell_confidence(s);
}

__global__ void samples_kernel(const float* __restrict__ gd, const float* __restrict__ gc,
                               const uint8_t* __restrict__ rgba, int gw, int gh, int W, int H,
                               const Span* __restrict__ span, Sample* __restrict__ out) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x), j = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= gw || j >= gh) return;
  out[size_t(j) * size_t(gw) + size_t(i)] =
      refine::make_sample(gd, gc, rgba, gw, gh, W, H, i, j, span->tol, span->lo, span->hi);
}

// The first pixel (of n) whose centre sample (of g) is c or later; n when none is.
__device__ int first_pixel(int c, int g, int n) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (refine::nearest_sample(refine::grid_pos(mid, g, n), g) >= c)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// The per-launch tables, one thread per entry: spatial[k][dv + 8][du + 8], weight() without colour, base
// 1, of window sample k (row-major) for a pixel (du, dv) sixteenths of a sample from its centre sample
// (nearest_sample keeps both in [-8, 8)); each column's and row's grid position, pos[x] then pos[W + y]
// (grid_pos's int64 division once per column and row, not per pixel); and the first column and row of
// each centre sample, first[c] (c <= gw) then first[gw + 1 + c] (c <= gh), for the tiles' pixel ranges.
struct Tables {
  uint32_t* spatial;
  int *pos, *first;
};
constexpr int kSpatialEntries = kWinSamples * kOffsets;
inline size_t table_entries(int gw, int gh, int W, int H) {
  return size_t(kSpatialEntries) + size_t(W) + size_t(H) + size_t(gw) + size_t(gh) + 2;
}
inline Tables tables_in(uint32_t* p, int W, int H) {
  int* pos = reinterpret_cast<int*>(p + kSpatialEntries);
  return Tables{p, pos, pos + size_t(W) + size_t(H)};
}
__global__ void tables_kernel(Tables t, int gw, int gh, int W, int H) {
  int e = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (e < kSpatialEntries) {
    const int k = e / kOffsets, dv = (e / kSub) % kSub - kSub / 2, du = e % kSub - kSub / 2;
    Sample s{};
    s.base = 1;
    const uint8_t rgb[3] = {0, 0, 0};
    t.spatial[e] = refine::weight(s, k % kWinSide - kWin, k / kWinSide - kWin, du, dv, rgb, false);
    return;
  }
  e -= kSpatialEntries;
  if (!t.pos) return;  // the spatial weights alone
  if (e < W) {
    t.pos[e] = refine::grid_pos(e, gw, W);
    return;
  }
  e -= W;
  if (e < H) {
    t.pos[W + e] = refine::grid_pos(e, gh, H);
    return;
  }
  e -= H;
  if (e <= gw)
    t.first[e] = first_pixel(e, gw, W);
  else if (e <= gw + 1 + gh)
    t.first[e] = first_pixel(e - gw - 1, gh, H);
}

// One pixel at grid position (u, v), centre sample (ci, cj). win / wrgb: its window's top-left sample in
// the tile (row stride kTileSide); sp: its spatial weights (stride kOffsets).
template <Reduce R>
__device__ __forceinline__ float refine_one(const TileSample* win, const uint2* wrgb,
                                            const uint32_t* __restrict__ sp, uint32_t prgb, int ci, int cj,
                                            int u, int v, const Span& span) {
  constexpr bool kMedian = R == Reduce::Median;
  // jbu's float64 chain would keep every hoisted load of a full unroll live (spills at 128 registers).
  constexpr int kUnroll = R == Reduce::Mean ? kWinSide : kWinSamples;
  uint32_t w[kMedian ? kWinSamples : 1];
  float p[kMedian ? kWinSamples : 1];
  if (kMedian) {
#pragma unroll
    for (int k = 0; k < kWinSamples; ++k)
      p[k] = predict(win[(k / kWinSide) * kTileSide + k % kWinSide], ci + k % kWinSide - kWin,
                     cj + k / kWinSide - kWin, u, v, span.lo, span.hi);
  }
  uint32_t total = 0, best = 0;
  int best_k = 0;
  double acc = 0.0;
  for (int pass = 0; pass < 2; ++pass) {
    const bool colour = pass == 0;
    total = 0, best = 0, acc = 0.0;
#pragma unroll(kUnroll)
    for (int k = 0; k < kWinSamples; ++k) {
      const int at = (k / kWinSide) * kTileSide + k % kWinSide;
      const TileSample s = win[at];
      const uint32_t wk = sample_weight(__ldg(sp + k * kOffsets), prgb, wrgb[at], s.base, colour);
      total += wk;
      if (kMedian) w[kMedian ? k : 0] = wk;
      if (R == Reduce::Mean && s.d == s.d) acc += double(wk) * double(s.d);
      if (R == Reduce::Max && wk > best) best = wk, best_k = k;
    }
    if (total != 0) break;
  }
  if (total == 0) return __int_as_float(0x7fc00000);
  if (R == Reduce::Mean) return float(acc / double(total));
  if (R == Reduce::Max)
    return predict(win[(best_k / kWinSide) * kTileSide + best_k % kWinSide], ci + best_k % kWinSide - kWin,
                   cj + best_k / kWinSide - kWin, u, v, span.lo, span.hi);
  // The weighted median by value of the predictions of positive weight: the smallest m whose predictions at
  // or below it hold half the total. The candidates [lo, hi] (values of the set) hold m; `below` weighs
  // those under lo. Each pass splits them at their mean t (lo <= t < hi: both parts keep a value) and
  // keeps the part that holds m, until one value is left, or until the polish no longer depends on where m
  // lies in [lo, hi]: {m : |p - m| <= polish_tol} is an interval for every p (the rounded differences are
  // monotone in m), every candidate tests true at both ends once hi - lo <= polish_tol, and a sample
  // outside [lo, hi] whose test agrees at both ends agrees everywhere between. Then the polish at lo is the
  // polish at m, in the same order.
  float lo = INFINITY, hi = -INFINITY, sum = 0.f;
  int count = 0;
#pragma unroll
  for (int k = 0; k < kWinSamples; ++k)
    if (w[kMedian ? k : 0] != 0) lo = fminf(lo, p[k]), hi = fmaxf(hi, p[k]), sum += p[k], ++count;
  const float tol = span.polish_tol;
  uint32_t below = 0;
  while (true) {
    if (!(lo < hi) || hi - lo <= tol) {
      const float m = lo;
      double a = 0.0;
      uint32_t wsum = 0;  // integers below 2^31: the CPU's float64 sum of them is exact
      bool same = true;
#pragma unroll
      for (int k = 0; k < kWinSamples; ++k) {
        const float q = p[k];
        const uint32_t wk = w[kMedian ? k : 0];
        const bool in = (q > m ? q - m : m - q) <= tol, in_hi = (q > hi ? q - hi : hi - q) <= tol;
        same = same && (in == in_hi || wk == 0);
        if (in && wk != 0) a += double(wk) * double(q), wsum += wk;
      }
      if (same || !(lo < hi)) return float(a / double(wsum));
    }
    float t = __fdividef(sum, float(count));  // any t in [lo, hi) would do: the fast quotient
    if (!(t >= lo && t < hi)) t = lo;
    uint32_t wl = 0;
    float max_l = -INFINITY, min_r = INFINITY, sum_l = 0.f, sum_r = 0.f;
    int count_l = 0, count_r = 0;
#pragma unroll
    for (int k = 0; k < kWinSamples; ++k) {
      const float q = p[k];
      if (w[kMedian ? k : 0] == 0 || !(q >= lo && q <= hi)) continue;
      if (q <= t)
        wl += w[kMedian ? k : 0], max_l = fmaxf(max_l, q), sum_l += q, ++count_l;
      else
        min_r = fminf(min_r, q), sum_r += q, ++count_r;
    }
    if (2ull * (uint64_t(below) + wl) >= total)
      hi = max_l, sum = sum_l, count = count_l;
    else
      below += wl, lo = min_r, sum = sum_r, count = count_r;
  }
}

// Registers bounded (blocks per SM: kPixMinBlocks<R>): the unrolled window loops would otherwise hoist every
// load. wmedian keeps 49 predictions and 49 weights live: at 4 blocks an SM (128 registers) it spilled 524
// bytes a thread, at 3 (168 registers) 188 bytes: 4K from 960x540 on an H100, the whole refine 2.621 ->
// 1.985 ms (2 blocks, 240 registers, no spill: 2.394; the weights in shared memory at 4 blocks: 2.195).
template <Reduce R>
constexpr int kPixMinBlocks = R == Reduce::Median ? 3 : 4;
template <Reduce R>
__global__ void __launch_bounds__(kPixThreads, kPixMinBlocks<R>)
    pixels_kernel(const uint32_t* __restrict__ image, const Sample* __restrict__ samples, int gw, int gh,
                  int W, int H, const Span* __restrict__ span_in, Tables tables,
                  const float* __restrict__ keep_d, const float* __restrict__ keep_c, float* __restrict__ out,
                  int splits) {
  __shared__ TileSample tile[kTileSamples];
  __shared__ uint2 tile_rgb[kTileSamples];
  __shared__ int range[4];
  const int tid = int(threadIdx.x);
  const int cx0 = int(blockIdx.x) * kTileCells, cy0 = int(blockIdx.y) * kTileCells;
  if (tid < 4) {  // the tile's pixels: [range[0], range[1]) x [range[2], range[3])
    const bool y = tid >= 2;
    const int c = min((y ? cy0 : cx0) + (tid & 1) * kTileCells, y ? gh : gw);
    range[tid] = tables.first[(y ? gw + 1 : 0) + c];
  }
  for (int t = tid; t < kTileSamples; t += kPixThreads) {
    const int gx = cx0 - kWin + t % kTileSide, gy = cy0 - kWin + t / kTileSide;
    TileSample s{__int_as_float(0x7fc00000), 0.f, 0.f, 0u};
    uint2 rgb = make_uint2(0u, 0u);
    if (gx >= 0 && gy >= 0 && gx < gw && gy < gh) {
      const Sample g = samples[size_t(gy) * size_t(gw) + size_t(gx)];
      s.d = g.d, s.gx = g.gx, s.gy = g.gy, s.base = g.base, rgb = palette_words(g);
    }
    tile[t] = s;
    tile_rgb[t] = rgb;
  }
  __syncthreads();
  const Span span = *span_in;
  const int x0 = range[0], npx = range[1] - range[0], npy = range[3] - range[2];
  const int total = npx * npy, chunk = (total + splits - 1) / splits;
  const int p0 = int(blockIdx.z) * chunk, p1 = min(total, p0 + chunk);
  for (int p = p0 + tid; p < p1; p += kPixThreads) {
    const int x = x0 + p % npx, y = range[2] + p / npx;
    const int u = tables.pos[x], v = tables.pos[W + y];
    const int ci = refine::nearest_sample(u, gw), cj = refine::nearest_sample(v, gh);
    const int corner = (cj - cy0) * kTileSide + (ci - cx0);
    const size_t at = size_t(y) * size_t(W) + size_t(x);
    const uint32_t* sp = tables.spatial + (v - kSub * cj + kSub / 2) * kSub + (u - kSub * ci + kSub / 2);
    const float q =
        refine_one<R>(tile + corner, tile_rgb + corner, sp, image[at] & 0xFFFFFFu, ci, cj, u, v, span);
    out[at] = keep_d ? refine::keep_confident(keep_d[at], keep_c[at], q) : q;
  }
}

dim3 grid2d(int w, int h, dim3 block) {
  return dim3(unsigned((w + int(block.x) - 1) / int(block.x)),
              unsigned((h + int(block.y) - 1) / int(block.y)));
}

const char* reduce_name(Reduce r) {
  return r == Reduce::Median ? "wmedian" : r == Reduce::Mean ? "jbu" : "snap";
}

template <Reduce R>
void launch_pixels(const RefineArgs& a, const Sample* samples, int gw, int gh, const Span* span,
                   const Tables& tables, const float* keep_d, const float* keep_c, const std::string& ctx) {
  // Pixels of a tile, at most: 8 cells' worth (each n / g pixels, rounded up, plus one) per axis.
  const long tile_w = long(kTileCells) * ((a.width + gw - 1) / gw) + 2;
  const long tile_h = long(kTileCells) * ((a.height + gh - 1) / gh) + 2;
  const long splits = std::clamp((tile_w * tile_h + kBlockPixels - 1) / kBlockPixels, 1L, 65535L);
  const dim3 grid(unsigned((gw + kTileCells - 1) / kTileCells), unsigned((gh + kTileCells - 1) / kTileCells),
                  unsigned(splits));
  pixels_kernel<R><<<grid, kPixThreads, 0, cudaStream_t(a.stream)>>>(
      static_cast<const uint32_t*>(a.image), samples, gw, gh, a.width, a.height, span, tables, keep_d, keep_c,
      a.out, int(splits));
  SATLAB_LAUNCHED(std::string("refine ") + reduce_name(R) + " pixels", ctx);
}

// Weight checks (check_refine_weights): every colour difference, then random (offset, sample, colours, base).
__global__ void colour_check_kernel(unsigned long long* bad) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (1u << 24)) return;
  const uint8_t rgb[3] = {uint8_t(t), uint8_t(t >> 8), uint8_t(t >> 16)};
  Sample s{};  // both palette colours black
  s.base = 1;
  const uint32_t want = refine::weight(s, 0, 0, 0, 0, rgb, true);  // the spatial part is 65536 at the centre
  const uint32_t got = uint32_t((uint64_t(65536u) * colour_weight(t, make_uint2(0u, 0u))) >> 16);
  if (got != want && atomicAdd(bad, 1ull) == 0) bad[1] = t;
}

__global__ void weight_check_kernel(const uint32_t* __restrict__ spatial, unsigned long long* bad) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  auto mix = [](uint32_t h) {
    h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
    return h;
  };
  const uint32_t h = mix(t), g0 = mix(t ^ 0x9e3779b9u), g1 = mix(t + 0x632be5abu), p = mix(t * 3u + 1u);
  const int k = int(h % kWinSamples), du = int((h >> 8) % kSub) - kSub / 2,
            dv = int((h >> 12) % kSub) - kSub / 2;
  const uint32_t base = (h >> 16) % 257;
  // Palette colours near the pixel's as often as far: g1 is p with small changes every other case.
  const uint32_t c1 = (t & 2) ? (p ^ (g1 & 0x070707u)) : g1;
  Sample s{};
  for (int c = 0; c < 3; ++c) s.rgb[0][c] = uint8_t(g0 >> (8 * c)), s.rgb[1][c] = uint8_t(c1 >> (8 * c));
  s.base = base;
  const uint8_t rgb[3] = {uint8_t(p), uint8_t(p >> 8), uint8_t(p >> 16)};
  const bool colour = (t & 7) != 0;
  const uint32_t want = refine::weight(s, k % kWinSide - kWin, k / kWinSide - kWin, du, dv, rgb, colour);
  const uint32_t got = sample_weight(spatial[k * kOffsets + (dv + kSub / 2) * kSub + du + kSub / 2],
                                     p & 0xFFFFFFu, palette_words(s), base, colour);
  if (got != want && atomicAdd(bad, 1ull) == 0) bad[1] = t;
}

}  // namespace

void refine_samples(const RefineArgs& a, Reduce r) {
  check_args(a, reduce_name(r));
  const cudaStream_t st = cudaStream_t(a.stream);
  const std::string ctx = size_context(a);
  const int W = a.width, H = a.height, dw = a.depth_width, dh = a.depth_height;
  const bool regrid = refine::needs_regrid(dw, dh, W, H);
  const int gw = regrid ? std::max(1, (W + refine::kCell / 2) / refine::kCell) : dw;
  const int gh = regrid ? std::max(1, (H + refine::kCell / 2) / refine::kCell) : dh;
  const size_t cells = size_t(gw) * size_t(gh), pixels = size_t(W) * size_t(H);
  const bool resampled = regrid && (dw != W || dh != H);
  const bool conf = a.confidence != nullptr;
  const dim3 block(32, 8);

  if (a.phase) a.phase("grid");
  Scratch span(sizeof(Span), st), grid(regrid ? cells * sizeof(float) : 0, st),
      grid_conf(regrid && conf ? cells * sizeof(float) : 0, st),
      full(resampled ? pixels * sizeof(float) : 0, st),
      full_conf(resampled && conf ? pixels * sizeof(float) : 0, st);
  const float *gd = a.depth, *gc = a.confidence;
  if (regrid) {
    const float *fd = a.depth, *fc = a.confidence;
    if (resampled) {
      resample(a.depth, dw, dh, full.as<float>(), W, H, st, ctx);
      fd = full.as<float>();
      if (conf)
        resample(a.confidence, dw, dh, full_conf.as<float>(), W, H, st, ctx), fc = full_conf.as<float>();
    }
    cells_kernel<<<grid2d(gw, gh, block), block, 0, st>>>(fd, fc, W, H, gw, gh, grid.as<float>(),
                                                          conf ? grid_conf.as<float>() : nullptr);
    SATLAB_LAUNCHED("refine cells", ctx);
    gd = grid.as<float>(), gc = conf ? grid_conf.as<float>() : nullptr;
  }
  depth_stats(gd, cells, span.as<Span>(), nullptr, st, ctx);
  // Regridded depth with confidence keeps its confident values (keep_confident) at the image's size.
  const float* keep_d = regrid && conf ? (resampled ? full.as<float>() : a.depth) : nullptr;
  const float* keep_c = regrid && conf ? (resampled ? full_conf.as<float>() : a.confidence) : nullptr;

  if (a.phase) a.phase("samples");
  const size_t entries = table_entries(gw, gh, W, H);
  Scratch samples(cells * sizeof(Sample), st), table_mem(entries * sizeof(uint32_t), st);
  const Tables tables = tables_in(table_mem.as<uint32_t>(), W, H);
  tables_kernel<<<blocks_for(entries, size_t(1) << 31), kThreads, 0, st>>>(tables, gw, gh, W, H);
  SATLAB_LAUNCHED("refine tables", ctx);
  samples_kernel<<<grid2d(gw, gh, block), block, 0, st>>>(gd, gc, static_cast<const uint8_t*>(a.image), gw,
                                                          gh, W, H, span.as<Span>(), samples.as<Sample>());
  SATLAB_LAUNCHED("refine samples", ctx);

  if (a.phase) a.phase("pixels");
  if (r == Reduce::Median)
    launch_pixels<Reduce::Median>(a, samples.as<Sample>(), gw, gh, span.as<Span>(), tables, keep_d, keep_c,
                                  ctx);
  else if (r == Reduce::Mean)
    launch_pixels<Reduce::Mean>(a, samples.as<Sample>(), gw, gh, span.as<Span>(), tables, keep_d, keep_c,
                                ctx);
  else
    launch_pixels<Reduce::Max>(a, samples.as<Sample>(), gw, gh, span.as<Span>(), tables, keep_d, keep_c, ctx);
}

}  // namespace satlab::gpu::refine_detail

namespace satlab::gpu {

std::string check_refine_weights() {
  using namespace refine_detail;
  const cudaStream_t st = nullptr;
  Scratch bad(2 * sizeof(unsigned long long), st),
      spatial(size_t(kWinSamples) * kOffsets * sizeof(uint32_t), st);
  SATLAB_CUDA(cudaMemsetAsync(bad.as<void>(), 0, 2 * sizeof(unsigned long long), st), "refine weight check");
  tables_kernel<<<blocks_for(size_t(kSpatialEntries)), kThreads, 0, st>>>(
      Tables{spatial.as<uint32_t>(), nullptr, nullptr}, 1, 1, 0, 0);
  SATLAB_LAUNCHED("refine spatial weights", "check");
  colour_check_kernel<<<(1u << 24) / kThreads, kThreads, 0, st>>>(bad.as<unsigned long long>());
  SATLAB_LAUNCHED("refine colour check", "");
  unsigned long long h[2];
  SATLAB_CUDA(cudaMemcpyAsync(h, bad.as<void>(), sizeof h, cudaMemcpyDeviceToHost, st),
              "refine weight check");
  SATLAB_CUDA(cudaStreamSynchronize(st), "refine weight check");
  if (h[0])
    return std::to_string(h[0]) +
           " colour differences weigh otherwise than core's weight(), first |dr, dg, db| = (" +
           std::to_string(h[1] & 255) + ", " + std::to_string((h[1] >> 8) & 255) + ", " +
           std::to_string(h[1] >> 16) + ")";
  SATLAB_CUDA(cudaMemsetAsync(bad.as<void>(), 0, 2 * sizeof(unsigned long long), st), "refine weight check");
  weight_check_kernel<<<(1u << 24) / kThreads, kThreads, 0, st>>>(spatial.as<uint32_t>(),
                                                                  bad.as<unsigned long long>());
  SATLAB_LAUNCHED("refine weight check", "");
  SATLAB_CUDA(cudaMemcpyAsync(h, bad.as<void>(), sizeof h, cudaMemcpyDeviceToHost, st),
              "refine weight check");
  SATLAB_CUDA(cudaStreamSynchronize(st), "refine weight check");
  if (h[0])
    return std::to_string(h[0]) +
           " of 2^24 random (offset, sample, colours, base) weigh otherwise than core's "
           "weight(), first case " +
           std::to_string(h[1]);
  return "";
}

}  // namespace satlab::gpu
