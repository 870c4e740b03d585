// GPU stereo matching: census, stacked cost slices through a registered SAT builder, box aggregation with
// both winner-take-alls, subpixel + left-right check, hole filling (see stereo.hpp for the scheme;
// core/stereo.cpp is the reference, matched bit for bit).
// Bytes per pixel and disparity (minimum): cost 1 B written, SAT 1 B read + 4 B written, aggregation
// 4 taps of 4 B per box mostly from L1/L2 (the SAT read once from DRAM): about 10 B; the box-rows table
// (the default) 1 B read + 2 B written, then 2 taps of 2 B per box: about 5 B. H200, 3840 x 2160 x 128
// disparities with the wide window (docs/performance.md, "Stereo"): 6.79 ms (census 0.50, cost 0.65, box rows
// 1.30, aggregate 4.16), against 9.33 through sat_lookback_2d in the same run (SAT 2.11, aggregate 5.91).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/common/warp.cuh"
#include "gpu/depth/stereo_gpu.hpp"
#include "gpu/depth/stereo_internal.hpp"
#include "gpu/device.hpp"

namespace satlab::gpu {
namespace {

constexpr int kCensusRx = kCensusWidth / 2, kCensusRy = kCensusHeight / 2;

__global__ void luma_kernel(const uchar4* __restrict__ img, size_t n, uint8_t* __restrict__ luma) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uchar4 p = img[i];
  luma[i] = uint8_t((77u * p.x + 150u * p.y + 29u * p.z + 128u) >> 8);
}

// census_9x7's bit order: row-major over the window, the centre skipped; neighbours clamped.
__global__ void census_kernel(const uint8_t* __restrict__ luma, int w, int h, int t,
                              unsigned long long* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w) return;
  const int c = __ldg(luma + size_t(y) * w + x);
  unsigned long long bits = 0;
  int k = 0;
#pragma unroll
  for (int dy = -kCensusRy; dy <= kCensusRy; ++dy) {
    const uint8_t* row = luma + size_t(min(max(y + dy, 0), h - 1)) * w;
#pragma unroll
    for (int dx = -kCensusRx; dx <= kCensusRx; ++dx) {
      if (dx == 0 && dy == 0) continue;
      if (int(__ldg(row + min(max(x + dx, 0), w - 1))) + t < c) bits |= 1ull << k;
      ++k;
    }
  }
  out[size_t(y) * w + x] = bits;
}

// Slices d0 .. d0 + K - 1 stacked (row k * h + y holds slice d0 + k), 4 columns of one row per thread
// and every slice of the stack: the left census read once, the right one slid left by a column per slice (one
// load per slice), so that each stack reads the census once instead of once per slice (132 MB per slice at
// 4K, past L2); a uint32 store per slice where the 4 bytes are aligned and inside the row, else byte stores.
// Grid (columns / 512, h).
__global__ void cost_slices_kernel(const unsigned long long* __restrict__ cl,
                                   const unsigned long long* __restrict__ cr, int w, int h, int d0, int K,
                                   uint8_t* __restrict__ stack) {
  const int x = 4 * int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y);
  if (x >= w) return;
  const size_t row = size_t(y) * size_t(w);
  unsigned long long l[4], r[4];  // r[j]: the right census at max(x + j - d, 0) for the slice d at hand
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    l[j] = __ldg(cl + row + min(x + j, w - 1));
    r[j] = __ldg(cr + row + min(max(x + j - d0, 0), w - 1));
  }
  for (int k = 0; k < K; ++k) {
    uint32_t c[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) c[j] = uint32_t(__popcll(l[j] ^ r[j]));
    uint8_t* o = stack + (size_t(k) * size_t(h) + size_t(y)) * size_t(w) + size_t(x);
    if (x + 3 < w && (reinterpret_cast<uintptr_t>(o) & 3) == 0) {
      *reinterpret_cast<uint32_t*>(o) = c[0] | c[1] << 8 | c[2] << 16 | c[3] << 24;
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (x + j < w) o[j] = uint8_t(c[j]);
    }
    r[3] = r[2], r[2] = r[1], r[1] = r[0];  // columns past the row only ever move right
    r[0] = __ldg(cr + row + max(x - (d0 + k + 1), 0));
  }
}

__device__ __forceinline__ StereoWta unpack(uint4 s) {
  StereoWta t;
  t.best = s.x & 0xFFFF, t.wta = s.x >> 16, t.c_minus = s.y & 0xFFFF, t.c_plus = s.y >> 16,
  t.prev = s.z & 0xFFFF, t.lag = s.z >> 16, t.second = s.w;
  return t;
}
__device__ __forceinline__ uint4 pack(const StereoWta& t) {
  return make_uint4(t.best | t.wta << 16, t.c_minus | t.c_plus << 16, t.prev | t.lag << 16, t.second);
}

// Every winner-take-all: the square window's and the wide window's of the left image (StereoWta, 16 B
// per pixel each: 16-bit sums, 16-bit disparities, packed as x = best | wta << 16, y = c_minus | c_plus
// << 16, z = prev | lag << 16, w = second; the wide one over the even slices only, kStereoWideStep), and
// the right image's. The right one needs no box of its own: the square box of slice d at x is the right
// pixel x - d's candidate, so every box is taken once. A block of kAggThreads pixels of one row reaches
// the right pixels x0 - d0 - K + 1 .. x0 + kAggThreads - 1 - d0; each keeps the lowest (sum << 16 | d)
// by a shared atomicMin (the lowest sum, the smallest d on ties: the reference's order; sums < 2^16,
// d < 2^16), then one global atomicMin per right pixel and block into right_best (all ones before the
// first stack).
// With the SAT (SatBoxes), boxes by 4 taps each (modular uint32 arithmetic: the row above a slice's window
// may lie in the slice before, which cancels), hoisted: both windows' clipped columns fixed per thread,
// the two rows' offsets stepped by a slice per iteration, the clipped-away taps masked, not branched.
// Measured against (H200, 3840x2160, 128 disparities, whole match): box() per window and slice, as before,
// 10.22 ms against 9.18 (7.87 against 8.80 without the wide window); the boxes from column sums in shared
// memory (one pair of loads per column and slice instead of 4 taps per box, but two __syncthreads per slice),
// 13.79 ms against 10.45 for box() with the wide window at every slice.
constexpr int kAggThreads = 128;

// The boxes of one pixel row from a stack's uint32 SAT (slices stacked vertically): 4 taps per box, the two
// rows' offsets stepped by a slice per next().
struct SatBoxes {
  const uint32_t* sat;
  long long slice, bottom, top;  // slice 0's rows: the window's last and the one above its first
  __device__ SatBoxes(const uint32_t* table, int y, int r, int w, int h)
      : sat(table), slice((long long)h * w), bottom((long long)min(y + r, h - 1) * w),
        top((long long)(max(y - r, 0) - 1) * w) {}
  static constexpr uint32_t kMask = ~0u;
  // Columns hi and l (the one before the first, masked by m where that is -1) of the current slice.
  __device__ uint32_t box(int hi, int l, uint32_t m) const {
    // The row above the window lies before the stack only for slice 0 at ya = 0: masked.
    const uint32_t tm = top >= 0 ? ~0u : 0u;
    const uint32_t* B = sat + bottom;
    const uint32_t* T = sat + (top >= 0 ? top : bottom);
    return (__ldg(B + hi) - (__ldg(B + l) & m)) - ((__ldg(T + hi) - (__ldg(T + l) & m)) & tm);
  }
  __device__ void next() { bottom += slice, top += slice; }
};

// The same boxes from a stack's box-rows table (below, box_rows_kernel): 2 taps of one row per box,
// R(hi) - R(lo - 1) mod 2^16.
struct RowBoxes {
  const uint16_t* row;
  size_t slice;
  __device__ RowBoxes(const uint16_t* table, int y, int /*r*/, int w, int h)
      : row(table + size_t(y) * w), slice(size_t(h) * size_t(w)) {}
  static constexpr uint32_t kMask = 0xFFFFu;
  __device__ uint32_t box(int hi, int l, uint32_t m) const {
    return (uint32_t(__ldg(row + hi)) - (uint32_t(__ldg(row + l)) & m)) & 0xFFFFu;
  }
  __device__ void next() { row += slice; }
};

// One kernel over either box source (Boxes: SatBoxes with a registered SAT builder, RowBoxes with the default
// box-rows table). Measured (docs/performance.md, "Stereo"; H200, 4K, 128 disparities): the box-rows table's
// 4.16 ms against the SAT's 5.91 in the same run; the next slice's taps loaded before this slice's steps:
// 4.24, dropped.
template <class Boxes, class T>
__global__ void __launch_bounds__(kAggThreads)
    aggregate_kernel(const T* __restrict__ table, int w, int h, int r, int wr, int d0, int K,
                     uint4* __restrict__ state, uint4* __restrict__ wide_state,
                     uint32_t* __restrict__ right_best) {
  extern __shared__ uint32_t rmin[];  // kAggThreads + K - 1
  const int t = int(threadIdx.x), x0 = int(blockIdx.x) * kAggThreads, x = x0 + t, y = int(blockIdx.y);
  const int span = kAggThreads + K - 1;
  for (int e = t; e < span; e += kAggThreads) rmin[e] = 0xFFFFFFFFu;
  __syncthreads();
  if (x < w) {
    const size_t i = size_t(y) * w + x;
    StereoWta sq, wide;
    if (d0 > 0) {
      sq = unpack(state[i]);
      if (wr > 0) wide = unpack(wide_state[i]);
    }
    // Columns of both windows: the last one, and the one before the first (masked where it is -1).
    const int sq_hi = min(x + r, w - 1), sq_lo = max(x - r, 0) - 1, wd_hi = min(x + wr, w - 1),
              wd_lo = max(x - wr, 0) - 1;
    const int sq_l = max(sq_lo, 0), wd_l = max(wd_lo, 0);
    const uint32_t sq_m = sq_lo >= 0 ? Boxes::kMask : 0u, wd_m = wd_lo >= 0 ? Boxes::kMask : 0u;
    Boxes boxes(table, y, r, w, h);
    for (int k = 0; k < K; ++k, boxes.next()) {
      const uint32_t d = uint32_t(d0 + k);
      const bool with_wide = wr > 0 && d % kStereoWideStep == 0;
      const uint32_t a = boxes.box(sq_hi, sq_l, sq_m);
      uint32_t aw = 0;
      if (with_wide) aw = boxes.box(wd_hi, wd_l, wd_m);
      stereo_wta_step(sq, d, a);
      if (with_wide) stereo_wta_step(wide, d / kStereoWideStep, aw);
      if (x >= int(d)) atomicMin(&rmin[t - k + K - 1], a << 16 | d);
    }
    state[i] = pack(sq);
    if (wr > 0) wide_state[i] = pack(wide);
  }
  __syncthreads();
  const int xr0 = x0 - d0 - K + 1;
  for (int e = t; e < span; e += kAggThreads) {
    const int xr = xr0 + e;
    const uint32_t v = rmin[e];
    if (xr >= 0 && xr < w && v != 0xFFFFFFFFu) atomicMin(right_best + size_t(y) * w + xr, v);
  }
}

// The box-rows table of a stack, the default in place of a registered SAT builder: both windows are
// 2r+1 rows tall, so every box of pixel row y is a difference of one row of
//   R(x, y) = sum over x' <= x of V(x', y),  V(x', y) = sum of the cost over rows ya..yb of column x'
// (ya, yb the window's rows clipped to the slice), kept mod 2^16: every box sum is below 2^16 (validate()),
// so R(hi) - R(lo - 1) mod 2^16 is the box sum exactly, the same integer the SAT's 4 taps give. 2 B per
// entry instead of the SAT's 4, and 2 taps per box instead of 4.
// A block per (strip of rows, slice), a thread per 16 columns of the whole row (w <= 16 * 1024): V of
// its columns slides down the strip (the row entering added, the row leaving subtracted, as 16-bit pairs
// in 8 words), then the row's prefix: the thread's 16 columns in order, the block's thread totals by a
// warp scan and the warp totals through shared memory (double-buffered: one barrier per row).
// kVec (w % 16 == 0): the 16 cost bytes of a thread's row as one 16-byte load, the 16 entries as two
// 16-byte stores; else bytes and 16-bit stores with bounds.
// Strips of 32 rows: 1.304 ms for the 4K table of 128 slices, 1.315 with 16, 1.483 with 64 (H200).
constexpr int kBoxColumns = 16, kBoxStrip = 32;
constexpr int kMaxBoxRowsWidth = kBoxColumns * 1024;
template <bool kVec>
__device__ __forceinline__ void load_row16(const uint8_t* row, int c0, int w, uint32_t (&v)[4]) {
  if (kVec) {
    if (c0 < w) {
      const uint4 q = __ldg(reinterpret_cast<const uint4*>(row + c0));
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
      v[0] = v[1] = v[2] = v[3] = 0;
    }
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      uint32_t u = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const int c = c0 + 4 * j + b;
        if (c < w) u |= uint32_t(__ldg(row + c)) << (8 * b);
      }
      v[j] = u;
    }
  }
}
// p[2j] holds the columns 4j (low half) and 4j + 2 (high half), p[2j + 1] the columns 4j + 1 and 4j + 3.
__device__ __forceinline__ void add_row16(uint32_t (&p)[8], const uint32_t (&v)[4]) {
#pragma unroll
  for (int j = 0; j < 4; ++j) p[2 * j] += v[j] & 0x00FF00FFu, p[2 * j + 1] += (v[j] >> 8) & 0x00FF00FFu;
}
__device__ __forceinline__ void sub_row16(uint32_t (&p)[8], const uint32_t (&v)[4]) {
#pragma unroll
  for (int j = 0; j < 4; ++j) p[2 * j] -= v[j] & 0x00FF00FFu, p[2 * j + 1] -= (v[j] >> 8) & 0x00FF00FFu;
}

template <bool kVec>
__global__ void box_rows_kernel(const uint8_t* __restrict__ stack, int w, int h, int r, int strip,
                                uint16_t* __restrict__ table) {
  __shared__ uint32_t warp_total[2][32];
  const int t = int(threadIdx.x), lane = t & 31, warp = t >> 5, warps = int(blockDim.x) >> 5;
  const int c0 = kBoxColumns * t;
  const int y0 = int(blockIdx.x) * strip, y1 = min(y0 + strip, h);
  const size_t slice = size_t(blockIdx.y) * size_t(h) * size_t(w);
  const uint8_t* in = stack + slice;
  uint16_t* out = table + slice;
  uint32_t p[8] = {0, 0, 0, 0, 0, 0, 0, 0}, v[4];
  for (int y = max(y0 - r, 0); y <= min(y0 + r, h - 1); ++y) {  // the first row's window
    load_row16<kVec>(in + size_t(y) * w, c0, w, v);
    add_row16(p, v);
  }
  for (int y = y0; y < y1; ++y) {
    if (y > y0) {  // slide: row y + r enters, row y - r - 1 leaves
      if (y + r < h) {
        load_row16<kVec>(in + size_t(y + r) * w, c0, w, v);
        add_row16(p, v);
      }
      if (y - r - 1 >= 0) {
        load_row16<kVec>(in + size_t(y - r - 1) * w, c0, w, v);
        sub_row16(p, v);
      }
    }
    uint32_t e[kBoxColumns];  // the thread's inclusive prefix of V
    uint32_t run = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      run += p[2 * j] & 0xFFFF, e[4 * j] = run;
      run += p[2 * j + 1] & 0xFFFF, e[4 * j + 1] = run;
      run += p[2 * j] >> 16, e[4 * j + 2] = run;
      run += p[2 * j + 1] >> 16, e[4 * j + 3] = run;
    }
    const uint32_t incl = warp::inclusive_scan(run);  // the warp's inclusive scan of the thread totals
    const int buf = (y - y0) & 1;
    if (lane == 31) warp_total[buf][warp] = incl;
    __syncthreads();
    uint32_t base = incl - run;
    for (int k = 0; k < warp && k < warps; ++k) base += warp_total[buf][k];
    uint16_t* o = out + size_t(y) * w + c0;
    if (kVec) {
      if (c0 < w) {
        uint32_t q[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) q[j] = ((base + e[2 * j]) & 0xFFFF) | (base + e[2 * j + 1]) << 16;
        reinterpret_cast<uint4*>(o)[0] = make_uint4(q[0], q[1], q[2], q[3]);
        reinterpret_cast<uint4*>(o)[1] = make_uint4(q[4], q[5], q[6], q[7]);
      }
    } else {
#pragma unroll
      for (int j = 0; j < kBoxColumns; ++j)
        if (c0 + j < w) o[j] = uint16_t(base + e[j]);
    }
  }
}

// Uniqueness, the left-right check against right_best and the subpixel offset of the kept winners.
// Where the square window's winner fails, the wide window's where it is unique (wide_state null: none).
__global__ void check_lr_kernel(const uint4* __restrict__ state, const uint4* __restrict__ wide_state,
                                const uint32_t* __restrict__ right_best, int w, int h, int D, int tolerance,
                                int uniqueness, int min_margin, int32_t* __restrict__ left_wta,
                                int32_t* __restrict__ right_wta, float* __restrict__ raw) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w) return;
  const size_t row = size_t(y) * w;
  const uint4 s = state[row + x];
  const int dl = int(s.x >> 16);
  const int xr = x - dl;
  bool ok = false;
  if (xr >= 0 && stereo_unique(s.x & 0xFFFF, s.w, uniqueness, min_margin))
    ok = abs(int(right_best[row + xr] & 0xFFFF) - dl) <= tolerance;
  left_wta[row + x] = dl;
  right_wta[row + x] = int32_t(right_best[row + x] & 0xFFFF);
  float v = ok ? stereo_subpixel(dl, D, s.y & 0xFFFF, s.x & 0xFFFF, s.y >> 16) : kNoDisparity;
  if (!ok && wide_state) {
    const StereoWta t = unpack(wide_state[row + x]);
    if (stereo_unique(t.best, t.second, uniqueness, min_margin)) v = stereo_wide_disparity(t, D);
  }
  raw[row + x] = v;
}

// One warp per row, 32 pixels at a time: left to right each rejected pixel takes the last kept value
// (ballot of the kept lanes, the highest one at or below the lane, else the carry), then right to left
// the smaller of that and the next kept value.
__global__ void fill_kernel(const float* __restrict__ raw, int w, int h, float* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int y = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (y >= h) return;
  const float* in = raw + size_t(y) * w;
  float* o = out + size_t(y) * w;
  float carry = kNoDisparity;
  for (int x0 = 0; x0 < w; x0 += 32) {
    const int x = x0 + lane;
    const float v = x < w ? in[x] : kNoDisparity;
    const unsigned kept = __ballot_sync(0xffffffffu, v != kNoDisparity);
    const unsigned upto = kept & (lane == 31 ? 0xffffffffu : (2u << lane) - 1u);
    const float from = warp::broadcast(v, upto ? 31 - __clz(upto) : 0);
    const float left = upto ? from : carry;
    if (x < w) o[x] = left;
    carry = warp::broadcast(left, 31);
  }
  __syncwarp();
  carry = kNoDisparity;
  for (int x0 = ((w - 1) / 32) * 32; x0 >= 0; x0 -= 32) {
    const int x = x0 + lane;
    const float v = x < w ? in[x] : kNoDisparity;
    const unsigned kept = __ballot_sync(0xffffffffu, v != kNoDisparity);
    const unsigned from_lane = kept & ~((1u << lane) - 1u);
    const float from = warp::broadcast(v, from_lane ? __ffs(from_lane) - 1 : 0);
    const float right = from_lane ? from : carry;
    if (x < w && v == kNoDisparity && right != kNoDisparity) {
      const float l = o[x];
      if (l == kNoDisparity || right < l) o[x] = right;
    }
    carry = warp::broadcast(right, 0);
  }
}

template <typename T>
T* alloc(size_t n, const std::string& what) {
  void* p = nullptr;
  SATLAB_CUDA(cudaMalloc(&p, std::max<size_t>(n * sizeof(T), 1)),
              what + ", " + std::to_string(n * sizeof(T)) + " B");
  return static_cast<T*>(p);
}

size_t g_stack_pixels = size_t(1) << 28;  // the largest SAT the registered builders are tested at

}  // namespace

void set_stereo_stack_pixels_for_testing(size_t pixels) {
  g_stack_pixels = pixels ? pixels : size_t(1) << 28;
}

StereoRun::StereoRun(int width, int height, const StereoParams& p, const std::string& sat_builder)
    : w_(width), h_(height), p_(p) {
  validate(p);
  if (width <= 0 || height <= 0) throw Error("stereo: empty images");
  std::string name = sat_builder.empty() ? kStereoSatBuilder : sat_builder;
  // The box-rows table needs a thread per 16 columns of a row; wider images take the SAT path.
  if (name == kStereoBoxRows && width > kMaxBoxRowsWidth) name = kStereoWideImageSatBuilder;
  rows_ = name == kStereoBoxRows;
  const size_t n = size_t(width) * size_t(height);
  if (!rows_) {
    for (const Variant& v : variants())
      if (v.family == Family::Sat && v.name == name) sat_ = &v;
    if (!sat_) throw Error("stereo: no SAT builder named '" + name + "' (see `satlab variants`)");
    const std::string why = sat_->refuses ? sat_->refuses(n, DType::U8) : "";
    if (!why.empty()) throw Error("stereo: SAT builder " + name + " refuses 8-bit input: " + why);
  }
  // At most 2^28 pixels (the largest SAT the builders are tested at) and 65535 rows (the rows+transpose
  // builders launch a grid row per image row) per stack.
  const size_t per_stack = std::min(g_stack_pixels / n, size_t(65535) / size_t(height));
  k_ = int(std::clamp<size_t>(per_stack, 1, size_t(p.disparities)));
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  for (auto*& b : img_) b = alloc<uchar4>(n, "stereo image " + size);
  for (auto*& b : luma_) b = alloc<uint8_t>(n, "stereo luma " + size);
  for (auto*& b : census_) b = alloc<unsigned long long>(n, "stereo census " + size);
  stack_ = alloc<uint8_t>(n * size_t(k_), "stereo cost slices " + size + " x " + std::to_string(k_));
  if (rows_)
    table_ = alloc<uint16_t>(n * size_t(k_), "stereo box rows " + size + " x " + std::to_string(k_));
  else
    sat_out_ = alloc<uint32_t>(n * size_t(k_), "stereo cost SAT " + size + " x " + std::to_string(k_));
  state_ = alloc<uint4>(n, "stereo state " + size);
  if (p.wide_radius > 0) wide_state_ = alloc<uint4>(n, "stereo wide-window state " + size);
  right_best_ = alloc<uint32_t>(n, "stereo right winners' sums " + size);
  left_wta_ = alloc<int32_t>(n, "stereo left winners");
  right_wta_ = alloc<int32_t>(n, "stereo right winners");
  raw_ = alloc<float>(n, "stereo raw disparity");
  out_ = alloc<float>(n, "stereo disparity");
}

StereoRun::~StereoRun() {
  for (void* b :
       {(void*)img_[0], (void*)img_[1], (void*)luma_[0], (void*)luma_[1], (void*)census_[0],
        (void*)census_[1], (void*)stack_, (void*)sat_out_, (void*)table_, (void*)state_, (void*)wide_state_,
        (void*)right_best_, (void*)left_wta_, (void*)right_wta_, (void*)raw_, (void*)out_})
    cudaFree(b);
}

void StereoRun::upload(const ImageRGBA8& left, const ImageRGBA8& right) {
  if (left.width != right.width || left.height != right.height)
    throw Error("stereo: the images differ in size (" + std::to_string(left.width) + "x" +
                std::to_string(left.height) + " and " + std::to_string(right.width) + "x" +
                std::to_string(right.height) + ")");
  if (left.width != w_ || left.height != h_) throw Error("stereo: images of another size than the buffers");
  const size_t bytes = left.pixels() * 4;
  SATLAB_CUDA(cudaMemcpy(img_[0], left.data.data(), bytes, cudaMemcpyHostToDevice), "stereo left upload");
  SATLAB_CUDA(cudaMemcpy(img_[1], right.data.data(), bytes, cudaMemcpyHostToDevice), "stereo right upload");
}

void StereoRun::poison() {
  const size_t n = size_t(w_) * size_t(h_);
  SATLAB_CUDA(cudaMemset(left_wta_, 0xAB, n * 4), "poison");
  SATLAB_CUDA(cudaMemset(right_wta_, 0xAB, n * 4), "poison");
  SATLAB_CUDA(cudaMemset(raw_, 0xAB, n * 4), "poison");
  SATLAB_CUDA(cudaMemset(out_, 0xAB, n * 4), "poison");
  SATLAB_CUDA(cudaMemset(state_, 0xAB, n * 16), "poison");
  if (wide_state_) SATLAB_CUDA(cudaMemset(wide_state_, 0xAB, n * 16), "poison");
  SATLAB_CUDA(cudaMemset(right_best_, 0xAB, n * 4), "poison");
}

void StereoRun::enqueue(void* stream, const std::function<void(const char*)>& stage) {
  const cudaStream_t s = cudaStream_t(stream);
  const size_t n = size_t(w_) * size_t(h_);
  const std::string size = std::to_string(w_) + "x" + std::to_string(h_);
  const dim3 row_block(128), row_grid(unsigned((w_ + 127) / 128), unsigned(h_));
  auto mark = [&](const char* name) {
    if (stage) stage(name);
  };
  mark("census");
  for (int i = 0; i < 2; ++i) {
    luma_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(img_[i], n, luma_[i]);
    SATLAB_LAUNCHED("luma_kernel", size);
    census_kernel<<<row_grid, row_block, 0, s>>>(luma_[i], w_, h_, p_.census_threshold, census_[i]);
    SATLAB_LAUNCHED("census_kernel", size);
  }
  const int D = p_.disparities;
  SATLAB_CUDA(cudaMemsetAsync(right_best_, 0xFF, n * sizeof(uint32_t), s), "stereo right winners reset");
  for (int d0 = 0; d0 < D; d0 += k_) {
    const int K = std::min(k_, D - d0);
    mark("cost");
    const dim3 cost_grid(unsigned((w_ + 4 * 128 - 1) / (4 * 128)), unsigned(h_));
    cost_slices_kernel<<<cost_grid, 128, 0, s>>>(census_[0], census_[1], w_, h_, d0, K, stack_);
    SATLAB_LAUNCHED("cost_slices_kernel", size + " x " + std::to_string(K));
    mark(rows_ ? "box_rows" : "sat");
    if (rows_) {
      const int threads = (((w_ + kBoxColumns - 1) / kBoxColumns + 31) / 32) * 32;
      const dim3 box_grid(unsigned((h_ + kBoxStrip - 1) / kBoxStrip), unsigned(K));
      if (w_ % kBoxColumns == 0)
        box_rows_kernel<true>
            <<<box_grid, threads, 0, s>>>(stack_, w_, h_, p_.window_radius, kBoxStrip, table_);
      else
        box_rows_kernel<false>
            <<<box_grid, threads, 0, s>>>(stack_, w_, h_, p_.window_radius, kBoxStrip, table_);
      SATLAB_LAUNCHED("box_rows_kernel", size + " x " + std::to_string(K));
    } else {
      SatArgs a;
      a.in = stack_, a.out = sat_out_, a.width = w_, a.height = h_ * K, a.channels = 1, a.dtype = DType::U8;
      a.stream = stream;
      sat_->sat(a);
    }
    mark("aggregate");
    const dim3 grid(unsigned((w_ + kAggThreads - 1) / kAggThreads), unsigned(h_));
    const size_t shared = size_t(kAggThreads + K - 1) * sizeof(uint32_t);
    if (rows_) {
      aggregate_kernel<RowBoxes><<<grid, kAggThreads, shared, s>>>(
          table_, w_, h_, p_.window_radius, p_.wide_radius, d0, K, state_, wide_state_, right_best_);
      SATLAB_LAUNCHED("aggregate_kernel (box rows)", size + " x " + std::to_string(K));
    } else {
      aggregate_kernel<SatBoxes><<<grid, kAggThreads, shared, s>>>(
          sat_out_, w_, h_, p_.window_radius, p_.wide_radius, d0, K, state_, wide_state_, right_best_);
      SATLAB_LAUNCHED("aggregate_kernel (SAT)", size + " x " + std::to_string(K));
    }
  }
  mark("check");
  check_lr_kernel<<<row_grid, row_block, 0, s>>>(state_, wide_state_, right_best_, w_, h_, D, p_.lr_tolerance,
                                                 p_.uniqueness, p_.min_margin, left_wta_, right_wta_, raw_);
  SATLAB_LAUNCHED("check_lr_kernel", size);
  mark("fill");
  if (p_.fill_holes) {
    fill_kernel<<<unsigned((h_ + 3) / 4), 128, 0, s>>>(raw_, w_, h_, out_);
    SATLAB_LAUNCHED("fill_kernel", size);
  } else {
    SATLAB_CUDA(cudaMemcpyAsync(out_, raw_, n * 4, cudaMemcpyDeviceToDevice, s), "stereo raw copy");
  }
}

StereoResult StereoRun::download() const {
  const size_t n = size_t(w_) * size_t(h_);
  SATLAB_CUDA(cudaDeviceSynchronize(), "stereo " + std::to_string(w_) + "x" + std::to_string(h_));
  StereoResult r;
  r.raw = ImageF(w_, h_);
  r.disparity = ImageF(w_, h_);
  r.left_wta.resize(n);
  r.right_wta.resize(n);
  SATLAB_CUDA(cudaMemcpy(r.raw.data.data(), raw_, n * 4, cudaMemcpyDeviceToHost), "stereo download");
  SATLAB_CUDA(cudaMemcpy(r.disparity.data.data(), out_, n * 4, cudaMemcpyDeviceToHost), "stereo download");
  SATLAB_CUDA(cudaMemcpy(r.left_wta.data(), left_wta_, n * 4, cudaMemcpyDeviceToHost), "stereo download");
  SATLAB_CUDA(cudaMemcpy(r.right_wta.data(), right_wta_, n * 4, cudaMemcpyDeviceToHost), "stereo download");
  return r;
}

StereoResult stereo_match(const ImageRGBA8& left, const ImageRGBA8& right, const StereoParams& p,
                          const std::string& sat_builder) {
  if (!probe().available) throw Error("stereo on the GPU: " + probe().reason);
  if (left.width != right.width || left.height != right.height)
    throw Error("stereo: the images differ in size (" + std::to_string(left.width) + "x" +
                std::to_string(left.height) + " and " + std::to_string(right.width) + "x" +
                std::to_string(right.height) + ")");
  StereoRun run(left.width, left.height, p, sat_builder);
  run.upload(left, right);
  run.poison();
  run.enqueue(nullptr);
  return run.download();
}

}  // namespace satlab::gpu
