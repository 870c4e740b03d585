// The spread DoF mode on the GPU (core/dof_spread.hpp; CPU reference dof_spread_blur, per-pixel arithmetic
// shared through core/dof_spread_pixel.hpp, this file built without FMA contraction so that both agree bit
// for bit). Phases, a function each below, reported through DofArgs::stage (fill: DofArgs::side_phase):
//   spread     each pixel's split where it mixes a nearer neighbour's colour (dof::mixed_of: the nearer share
//              and the rest splat as two fragments) and its hidden background where it is a thin near
//              object's (dof::hidden_of: a third fragment), each 32 x 32 tile's set of layers present, each
//              tile's set of layers whose spread can reach it (`cover`), and those tiles of those layers'
//              spread images cleared; then per layer, on a stream of its own (DofWorkspace::layer): a block
//              takes a tile's pixels of the layer (and, in the frame's first and last tile rows and columns,
//              the virtual pixels beyond its edges within R: dof::outside) and, when the tile's window (the
//              tile grown by the layer's largest aperture radius R, 1 + R beyond its right and bottom edges)
//              fits in shared memory, adds their signed corner deltas there (the apertures of core's
//              spread_apertures: equal adjacent bands merged, fewer corners, the same deltas; shared
//              atomics; uint32 wrap-around: exact and order-free; a tile at least R from every edge takes its
//              corners unclipped from the layer's corner table), takes the window's SAT (its rows in place,
//              its columns summed as they are added) and adds its non-zero words to the layer's spread image
//              (coalesced global atomics): that image becomes the layer's SAT, the sum of its windows' SATs.
//              Layers whose window does not fit add their deltas straight to global memory. Beside it, on a
//              second stream (DofWorkspace::side; the spread is bound by shared-memory atomics, this by
//              memory bandwidth), the fill tables: per layer t < count - 1 the slice of the (12-bit linear
//              colour, 1) image of the pixels of layers 0..t summed over blocks of dof::kFillBlock x
//              kFillBlock pixels (dof::spread_pixel), one RGBA16 image (or, where the SAT builder
//              takes only 8-bit input, low and high bytes as two RGBA8 images, as the layered mode's),
//              through the registry's SAT builder, over the box of those layers' tiles (read back while the
//              spread runs), or as the table of every layer less that of layers t + 1..count - 1 where those
//              reach fewer pixels;
//   sat        the SATs of the layers that went to global memory (uint32 in place: rows, column sums per
//              band of rows, their prefix over the bands, the columns), and the wait for whatever of the
//              fill tables outlasts the spread;
//   composite  dof::spread_pixel per pixel: the spread sums read at the pixel itself (one uint4 per layer
//              that covers its tile, 0 for the others), the fill's box taps from the fill tables.
// Bytes (per pixel and layer, over the tiles the layer covers): clearing writes 16; the flush's atomics
// read and write 16 (x (1 + (2R + 1) / 32)^2 for the windows' overlap, less their zero words); the
// composite reads 16. The fill tables add 8 + 24 per block of each table built (8 + 2 x 20 as two RGBA8
// tables; at most the frame's per layer but the last; a block is kFillBlock^2 pixels), and the composite's
// few box taps. A layer through
// global memory adds 256 atomics per pixel and its SAT 80 B per pixel.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>

#include "core/dof.hpp"
#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/common/warp.cuh"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

constexpr int kBlock = 256;

// Points of the plane (the frame's edges extended: the frame's pixel at the clamped position): CoC (NaN as
// 0) and 12-bit linear colour, as dof::mixed_of reads them.
struct PlaneCoc {
  const float* coc;
  int w, h;
  __device__ __forceinline__ float operator()(int x, int y) const {
    const float c = __ldg(coc + size_t(dof::clamp_to(y, h)) * size_t(w) + size_t(dof::clamp_to(x, w)));
    return c == c ? c : 0.f;
  }
};
struct PlaneLin {
  const uchar4* img;
  const uint16_t* lin;
  int w, h;
  __device__ __forceinline__ void operator()(int x, int y, uint32_t l[3]) const {
    const uchar4 p = img[size_t(dof::clamp_to(y, h)) * size_t(w) + size_t(dof::clamp_to(x, w))];
    l[0] = __ldg(lin + p.x), l[1] = __ldg(lin + p.y), l[2] = __ldg(lin + p.z);
  }
};

// The record of the point (x, y) of the plane, from those tile_splits wrote (only for the tiles that hold
// a split or a hidden background: 0 elsewhere): its split (dof::mixed_of) in bits 0..15, its hidden
// background (dof::hidden_of, with the fragment's layer in bits kHiddenLayer.. of it: the tile kernels run
// per layer, and read the fragment's CoC only in its own layer's) in bits 16..31; w x h for the frame's
// pixels, then 2 (w + h) for the virtual ones beyond its edges. A virtual pixel beyond the left edge (x < 0,
// 0 <= y < h) has the neighbours of (-1, y) (those along the row clamp to (0, y), as it does), so all of
// them split as (-1, y) does, and each has the hidden background of (0, y), which is that of (-1, y)
// (dof::hidden_of); the same for the other edges; beyond a corner every neighbour clamps to the corner:
// neither.
constexpr int kHiddenLayer = 9;
static_assert(dof::kMaxLayers <= 8 && (dof::kHiddenBits >> kHiddenLayer) == 0u, "a record's bits");
__device__ __forceinline__ uint32_t mixed_record(const uint32_t* __restrict__ mixed,
                                                 const uint8_t* __restrict__ splits, int x, int y, int w,
                                                 int h) {
  const bool in_x = x >= 0 && x < w, in_y = y >= 0 && y < h;
  const size_t n = size_t(w) * size_t(h);
  size_t i;
  if (!in_x && !in_y) return 0u;
  // Written only for the tiles that hold a split or a hidden background (a virtual pixel's: that of the
  // pixel it copies).
  const int cx = dof::clamp_to(x, w), cy = dof::clamp_to(y, h);
  if (!__ldg(splits + (cy / kSpreadTile) * ((w + kSpreadTile - 1) / kSpreadTile) + cx / kSpreadTile))
    return 0u;
  if (in_x && in_y)
    i = size_t(y) * size_t(w) + size_t(x);
  else if (in_y)
    i = n + (x < 0 ? 0 : size_t(h)) + size_t(y);
  else
    i = n + 2 * size_t(h) + (y < 0 ? 0 : size_t(w)) + size_t(x);
  return __ldg(mixed + i);
}

// The fragments of the point (x, y) of the plane in a tile that holds a split or a hidden background
// (dof::mixed_of, dof::hidden_of, read through mixed_record): fn(share, coc, colour) for each with a share
// of the pixel (the hidden background whole, only where its layer is in the mask `only`), colour(l) giving
// its 12-bit linear colour (read only when called).
template <class Fn>
__device__ __forceinline__ void mixed_fragments(const uchar4* __restrict__ img, const float* __restrict__ coc,
                                                const uint32_t* __restrict__ mixed,
                                                const uint8_t* __restrict__ splits,
                                                const uint16_t* __restrict__ lin, int x, int y, int w, int h,
                                                unsigned only, const Fn& fn) {
  const PlaneCoc coc_at{coc, w, h};
  const PlaneLin lin_at{img, lin, w, h};
  const uint32_t rec = mixed_record(mixed, splits, x, y, w, h), m = rec & 0xffffu, s = dof::mixed_share(m),
                 hb = rec >> 16;
  const int nx = x + dof::mixed_dx(dof::mixed_dir(m)), ny = y + dof::mixed_dy(dof::mixed_dir(m));
  // One call site of fn, not unrolled: the tile kernel's splat, inlined once per site, is bound by
  // instruction issue.
#pragma unroll 1
  for (int f = 0; f < 3; ++f) {
    uint32_t share;
    float c;
    if (f < 2) {
      share = f ? s : 256u - s;
      if (!share) continue;
      c = f ? coc_at(nx, ny) : coc_at(x, y);
    } else {
      if (!hb || !((only >> (hb >> kHiddenLayer)) & 1u)) continue;
      share = 256u, c = dof::hidden_coc(coc_at, hb, x, y);
    }
    fn(share, c, [&](uint32_t l[3]) {
      if (f < 2)
        dof::fragment_colour(f, m, lin_at, x, y, l);
      else
        dof::hidden_colour(lin_at, hb, x, y, l);
    });
  }
}

// The splat of the point (x, y) of the plane (dof::outside: the frame's pixel at the clamped position
// beyond the frame's edges): its fragments (one, two where it is a mixed pixel: dof::mixed_of, and the
// hidden background where it has one: dof::hidden_of; mixed_fragments) whose layer is in `only` add
// add(j, X, Y, k, value) for every corner delta (its two apertures, whole-aperture weights scaled by the
// fragment's share, rectangles clipped to the frame); a virtual fragment out of its reach of the frame adds
// nothing. Mixed = false: the caller knows no point it passes has a split or a hidden background (the whole
// pixel, one fragment: the records are not read).
template <bool Mixed, class Add>
__device__ __forceinline__ void splat_point(const Add& add, const uchar4* __restrict__ img,
                                            const float* __restrict__ coc, const uint32_t* __restrict__ mixed,
                                            const uint8_t* __restrict__ splits, const dof::Layers& layers,
                                            unsigned only, int x, int y, int w, int h, int max_r,
                                            const dof::Rect* __restrict__ rects,
                                            const dof::SpreadInfo* __restrict__ info,
                                            const uint16_t* __restrict__ lin, bool cat_eye) {
  // With cat-eye, the table of the point's bin (dof::cat_eye_bin): max_r + 1 radii a bin.
  const auto slot = [&](const dof::Splat& sp) {
    return cat_eye ? dof::cat_eye_bin(x, y, w, h, sp.front) * (max_r + 1) : 0;
  };
  if constexpr (!Mixed) {
    // One fragment, the whole pixel.
    const size_t i = size_t(dof::clamp_to(y, h)) * size_t(w) + size_t(dof::clamp_to(x, w));
    const float c = __ldg(coc + i);
    const int j = dof::layer_of(c == c ? c : 0.f, layers);
    if (!((only >> j) & 1u)) return;
    const dof::Splat sp = dof::splat_of(c, max_r);
    if (dof::outside(x, y, w, h) > dof::splat_reach(sp)) return;
    const uchar4 p = img[i];
    const uint32_t l[3] = {__ldg(lin + p.x), __ldg(lin + p.y), __ldg(lin + p.z)};
    const int s = slot(sp);
    dof::splat_fragment([&](int X, int Y, int k, uint32_t v) { add(j, X, Y, k, v); }, l, sp, 256u,
                        rects + s * dof::kMaxSpreadRects, info + s, x, y, w, h);
    return;
  }
  mixed_fragments(img, coc, mixed, splits, lin, x, y, w, h, only,
                  [&](uint32_t share, float c, const auto& colour) {
                    const int j = dof::layer_of(c, layers);
                    if (!((only >> j) & 1u)) return;
                    const dof::Splat sp = dof::splat_of(c, max_r);
                    if (dof::outside(x, y, w, h) > dof::splat_reach(sp)) return;
                    uint32_t l[3];
                    colour(l);
                    const int s = slot(sp);
                    dof::splat_fragment([&](int X, int Y, int k, uint32_t v) { add(j, X, Y, k, v); }, l, sp,
                                        share, rects + s * dof::kMaxSpreadRects, info + s, x, y, w, h);
                  });
}

// Global atomics: the points of the plane within max_r of the frame (grid over w + 2 max_r by h + 2 max_r)
// whose layer is in `only` (a bit mask) add to their layer's delta image.
__global__ void __launch_bounds__(kBlock)
    spread_kernel(const uchar4* __restrict__ img, const float* __restrict__ coc,
                  const uint32_t* __restrict__ mixed, const uint8_t* __restrict__ splits, int w, int h,
                  dof::Layers layers, unsigned only, int max_r, const dof::Rect* __restrict__ rects,
                  const dof::SpreadInfo* __restrict__ info, const uint16_t* __restrict__ lin, bool cat_eye,
                  uint32_t* __restrict__ deltas) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x) - max_r,
            y = int(blockIdx.y * blockDim.y + threadIdx.y) - max_r;
  if (x >= w + max_r || y >= h + max_r) return;
  const size_t n = size_t(w) * size_t(h);
  splat_point<true>(
      [&](int j, int X, int Y, int k, uint32_t v) {
        atomicAdd(deltas + size_t(j) * n * 4 + (size_t(Y) * size_t(w) + size_t(X)) * 4 + k, v);
      },
      img, coc, mixed, splits, layers, only, x, y, w, h, max_r, rects, info, lin, cat_eye);
}

// Tiles of 32 x 32 pixels (a block of 32 x 8 threads, 4 rows each).
constexpr int kTile = kSpreadTile, kRows = kTile / 8;
static_assert(kTile == 32, "a tile row is a warp: blocks of 32 x 8 threads");

// dof::layer_of for increasing edges (make_layers', frame_layers'), compared in registers: the layers
// k >= 1 with !(c < edge[k]) are 1..layer_of(c) (layer_of's loop over the edges keeps a local copy of them).
__device__ __forceinline__ int layer_in_registers(float c, const dof::Layers& l) {
  int j = 0;
#pragma unroll
  for (int k = 1; k < dof::kMaxLayers; ++k) j += k < l.count && !(c < l.edge[k]) ? 1 : 0;
  return j;
}

// dof::mixed_of's colour fit for the point (x, y) of the plane whose depth test gave `dir`, out of line.
__device__ __noinline__ uint32_t mixed_fit_at(const uchar4* __restrict__ img,
                                              const uint16_t* __restrict__ lin, int w, int h, int x, int y,
                                              int dir) {
  const PlaneLin lin_at{img, lin, w, h};
  uint32_t C[3], F[3], B[3];
  lin_at(x, y, C);
  lin_at(x + dof::mixed_dx(dir), y + dof::mixed_dy(dir), F);
  lin_at(x - dof::mixed_dx(dir), y - dof::mixed_dy(dir), B);
  return dof::mixed_fit(C, F, B, dir);
}

// A tile's splits and hidden backgrounds (tile_splits_kernel, for a tile with a CoC step of more than
// dof::kMixedStep between 4-neighbours; called by the whole block): each pixel's split (dof::mixed_of) and
// hidden background (dof::hidden_of) into mixed[] where the tile holds either, and on the frame's edges
// the virtual pixels' (mixed_record). Returns in x the layers of the nearer shares and the hidden
// backgrounds of the thread's pixels and of the virtual pixels it records, in y the or of the thread's
// records (non-zero: a split or a hidden background).
__device__ __forceinline__ uint2 tile_splits(const uchar4* __restrict__ img, const float* __restrict__ coc,
                                             int w, int h, int bx, int by, const float* __restrict__ edges,
                                             int count, const uint16_t* __restrict__ lin,
                                             uint32_t* __restrict__ mixed) {
  unsigned bits = 0u;
  // The tile's CoCs and those of the pixels within kHiddenGap + 1 of it (the frame's edges extended: each
  // the clamped pixel's), NaN as 0: every point the records read (the tile's pixels' and the virtual
  // pixels' just beyond the frame's edges, mixed_record) lies in this window, so it is read unclamped.
  constexpr int kPad = dof::kHiddenGap + 1, kHalo = kTile + 2 * kPad;
  __shared__ float halo[kHalo * kHalo];
  __shared__ unsigned any;
  const int hx0 = bx * kTile - kPad, hy0 = by * kTile - kPad;
  for (int i = threadIdx.y * 32 + threadIdx.x; i < kHalo * kHalo; i += kBlock) {
    const int hx = hx0 + i % kHalo, hy = hy0 + i / kHalo;
    const float c = __ldg(coc + size_t(dof::clamp_to(hy, h)) * size_t(w) + size_t(dof::clamp_to(hx, w)));
    halo[i] = c == c ? c : 0.f;
  }
  if (threadIdx.x == 0 && threadIdx.y == 0) any = 0u;
  __syncthreads();
  const auto coc_at = [&](int px, int py) { return halo[(py - hy0) * kHalo + (px - hx0)]; };
  const auto layer = [&](float c) {
    int j = 0;
    for (int k = 1; k < count; ++k) j += !(c < edges[k]) ? 1 : 0;
    return j;
  };
  const auto split_at = [&](int px, int py) {
    const int dir = dof::mixed_direction(coc_at, px, py);
    return dir < 0 ? 0u : mixed_fit_at(img, lin, w, h, px, py, dir);
  };
  const bool edge = bx == 0 || by == 0 || (bx + 1) * kTile >= w || (by + 1) * kTile >= h;
  const int x = bx * kTile + threadIdx.x;
  const size_t n = size_t(w) * size_t(h);
  // The record of the point (px, py) (mixed_record), the layers of its nearer share and its hidden
  // background added to bits.
  const auto record_at = [&](int px, int py) {
    const uint32_t m = split_at(px, py);
    uint32_t hb = dof::hidden_of(coc_at, px, py);
    if (dof::mixed_share(m))
      bits |=
          1u << layer(coc_at(px + dof::mixed_dx(dof::mixed_dir(m)), py + dof::mixed_dy(dof::mixed_dir(m))));
    if (hb) {
      const int j = layer(dof::hidden_coc(coc_at, hb, px, py));
      bits |= 1u << j;
      hb |= uint32_t(j) << kHiddenLayer;
    }
    return m | hb << 16;
  };
  uint32_t split = 0u, record[kRows];
  for (int i = 0; i < kRows; ++i) {
    const int y = by * kTile + threadIdx.y + 8 * i;
    record[i] = 0u;
    if (x >= w || y >= h) continue;
    record[i] = record_at(x, y);
    split |= record[i];
    if (edge) {
      // The virtual pixels beyond the edge at this row or column (all of them have this one's record).
      const auto edge_record = [&](size_t at, int vx, int vy) {
        const uint32_t e = record_at(vx, vy);
        mixed[at] = e;
        split |= e;
      };
      if (x == 0) edge_record(n + size_t(y), -1, y);
      if (x == w - 1) edge_record(n + size_t(h) + size_t(y), w, y);
      if (y == 0) edge_record(n + 2 * size_t(h) + size_t(x), x, -1);
      if (y == h - 1) edge_record(n + 2 * size_t(h) + size_t(w) + size_t(x), x, h);
    }
  }
  if (split) atomicOr(&any, 1u);
  __syncthreads();
  // The frame's pixels' records only where the tile holds a split or a hidden background (mixed_record
  // reads no other).
  if (any)
    for (int i = 0; i < kRows; ++i) {
      const int y = by * kTile + threadIdx.y + 8 * i;
      if (x < w && y < h) mixed[size_t(y) * size_t(w) + size_t(x)] = record[i];
    }
  return make_uint2(bits, split);
}

// Bit j of present[tile]: the tile holds a pixel of layer j (tile_splits_kernel adds the layers of split
// pixels' nearer shares and of hidden backgrounds); steps[tile]: the tile has a CoC step of more than
// dof::kMixedStep between 4-neighbours (one of its pixels and any neighbour, in the tile or not). Only such
// a tile can hold a split (dof::mixed_of: a nearer neighbour at least that step away; a virtual pixel's
// neighbours clamp to one of the tile's pixels and its neighbours) or a hidden background (dof::hidden_of:
// on each side of its pixel, within kHiddenGap along its row or column, a 4-neighbour step of more than
// kMixedStep; with kHiddenGap below 18 the two cannot both lie outside a 32-pixel tile, so one of them
// involves a pixel of the tile), so only those take tile_splits_kernel's work (most tiles of most frames
// have none: the bench's ramp steps by at most 0.06 px). The split's work in this kernel, even out of line,
// took 2-3 times its time (0.026 -> 0.055-0.08 ms at 4K, measured).
__global__ void __launch_bounds__(kBlock)
    tile_layers_kernel(const float* __restrict__ coc, int w, int h, dof::Layers layers,
                       uint8_t* __restrict__ present, uint8_t* __restrict__ steps,
                       unsigned* __restrict__ step_count, unsigned* __restrict__ step_list) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  unsigned bits = 0, step = 0;
  const auto at = [&](int px, int py) {
    const float c = __ldg(coc + size_t(dof::clamp_to(py, h)) * size_t(w) + size_t(dof::clamp_to(px, w)));
    return c == c ? c : 0.f;
  };
  // The tile's CoCs and the ring of pixels around it (the frame's edges extended) in shared memory, all
  // loaded before any is compared: a test that loads a neighbour beyond the tile only in the lanes at its
  // edge waits for that load in every lane (measured: 26 -> 53-56 us at 4K with such loads, against the pass
  // without the test).
  constexpr int kRing = kTile + 2;
  __shared__ float ring[kRing][kRing + 1];
  const int x0 = int(blockIdx.x) * kTile - 1, y0 = int(blockIdx.y) * kTile - 1;
  // The pass is bound by instructions, not memory (Nsight Compute at 4K: SM 81 %, DRAM 14 %, about 125
  // instructions per pixel), so the ring of a tile inside the frame (most of them) is loaded without the
  // clamps, and each thread takes its pixels' layers from their least and greatest CoC where both lie in
  // one layer (layer_of is monotone in the CoC: every value between them is in that layer too).
  if (x0 >= 0 && y0 >= 0 && x0 + kRing <= w && y0 + kRing <= h) {
    const float* base = coc + size_t(y0) * size_t(w) + size_t(x0);
    for (int i = threadIdx.y * 32 + threadIdx.x; i < kRing * kRing; i += kBlock) {
      const int ry = i / kRing, rx = i - ry * kRing;
      const float c = __ldg(base + size_t(ry) * size_t(w) + size_t(rx));
      ring[ry][rx] = c == c ? c : 0.f;
    }
  } else {
    for (int i = threadIdx.y * 32 + threadIdx.x; i < kRing * kRing; i += kBlock)
      ring[i / kRing][i % kRing] = at(x0 + i % kRing, y0 + i / kRing);
  }
  __syncthreads();
  // Each pair of 4-neighbours with a pixel in the tile, once: every pixel's right and lower neighbours,
  // and the left and upper ones of the tile's first column and row.
  const int tx = threadIdx.x + 1;
  float lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < kRows; ++i) {
    const int ty = threadIdx.y + 8 * i + 1, y = y0 + ty;
    if (x >= w || y >= h) continue;
    const float c = ring[ty][tx];
    lo = fminf(lo, c), hi = fmaxf(hi, c);
    step |= (fabsf(ring[ty][tx + 1] - c) > dof::kMixedStep) |
            (fabsf(ring[ty + 1][tx] - c) > dof::kMixedStep) |
            (tx == 1 && fabsf(ring[ty][0] - c) > dof::kMixedStep) |
            (ty == 1 && fabsf(ring[0][tx] - c) > dof::kMixedStep);
  }
  if (lo <= hi) {
    const int jl = layer_in_registers(lo, layers), jh = layer_in_registers(hi, layers);
    if (jl == jh) {
      bits = 1u << jl;
    } else {
      for (int i = 0; i < kRows; ++i) {
        const int ty = threadIdx.y + 8 * i + 1, y = y0 + ty;
        if (x < w && y < h) bits |= 1u << layer_in_registers(ring[ty][tx], layers);
      }
    }
  }
  bits = __reduce_or_sync(0xffffffffu, bits | (step ? 1u << dof::kMaxLayers : 0u));
  __shared__ unsigned warp_bits[8];
  if (threadIdx.x == 0) warp_bits[threadIdx.y] = bits;
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    for (int k = 1; k < 8; ++k) bits |= warp_bits[k];
    const unsigned tile = blockIdx.y * gridDim.x + blockIdx.x;
    present[tile] = uint8_t(bits);
    steps[tile] = uint8_t(bits >> dof::kMaxLayers);
    if (bits >> dof::kMaxLayers) step_list[atomicAdd(step_count, 1u)] = tile;
  }
}

// The tiles with a step (tile_layers_kernel's list of them, in any order; a grid of a few blocks per SM,
// each taking every gridDim.x-th tile of the list): tile_splits, then the layers of the nearer shares
// and the hidden backgrounds added to present[tile], splits[tile] (overwriting the step flag: the tile
// holds a split or a hidden background) and the list of those tiles (in any order; *split_count preset to
// 0). (A block per tile, leaving at once where the tile had no step, took 11.5 us at 4K on the bench's
// frame, where no tile has one.)
static_assert(dof::kHiddenGap < 18, "a hidden background's tile has a step (tile_layers_kernel)");
__global__ void __launch_bounds__(kBlock)
    tile_splits_kernel(const uchar4* __restrict__ img, const float* __restrict__ coc, int w, int h,
                       dof::Layers layers, const uint16_t* __restrict__ lin, uint32_t* __restrict__ mixed,
                       const unsigned* __restrict__ step_count, const unsigned* __restrict__ step_list,
                       uint8_t* __restrict__ present, uint8_t* __restrict__ splits,
                       unsigned* __restrict__ split_count, unsigned* __restrict__ split_list) {
  const unsigned tiles = *step_count, tx = (unsigned(w) + kTile - 1) / kTile;
  if (blockIdx.x >= tiles) return;
  __shared__ float edges[dof::kMaxLayers + 1];
  __shared__ unsigned warp_bits[8];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    for (int k = 0; k <= dof::kMaxLayers; ++k) edges[k] = layers.edge[k];
  __syncthreads();
  for (unsigned k = blockIdx.x; k < tiles; k += gridDim.x) {
    const unsigned tile = step_list[k];
    const uint2 t =
        tile_splits(img, coc, w, h, int(tile % tx), int(tile / tx), edges, layers.count, lin, mixed);
    unsigned bits = __reduce_or_sync(0xffffffffu, t.x | (t.y ? 1u << dof::kMaxLayers : 0u));
    if (threadIdx.x == 0) warp_bits[threadIdx.y] = bits;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      for (int i = 1; i < 8; ++i) bits |= warp_bits[i];
      present[tile] = uint8_t(present[tile] | bits);
      splits[tile] = uint8_t(bits >> dof::kMaxLayers);
      if (bits >> dof::kMaxLayers) split_list[atomicAdd(split_count, 1u)] = tile;
    }
    __syncthreads();  // the next tile reuses tile_splits' shared memory and warp_bits
  }
}

// The layers whose spread can reach each tile: bit j of cover[tile] when a tile within reach[j] tiles
// (Chebyshev) holds a pixel of layer j (a window reaches 1 + R / 32 tiles beyond its own), or always for
// the layers in `everywhere` (those through global memory: their SAT pass reads the whole image).
struct Reach {
  int tiles[dof::kMaxLayers];
};

__global__ void __launch_bounds__(kBlock)
    cover_kernel(const uint8_t* __restrict__ present, int tx, int ty, int layers, Reach reach,
                 unsigned everywhere, uint8_t* __restrict__ cover) {
  const int t = blockIdx.x * kBlock + threadIdx.x;
  if (t >= tx * ty) return;
  const int x = t % tx, y = t / tx;
  unsigned bits = everywhere;
  for (int j = 0; j < layers; ++j) {
    const int r = reach.tiles[j];
    if ((bits >> j) & 1u) continue;
    for (int v = max(0, y - r); v <= min(ty - 1, y + r) && !((bits >> j) & 1u); ++v)
      for (int u = max(0, x - r); u <= min(tx - 1, x + r); ++u)
        if ((present[v * tx + u] >> j) & 1u) {
          bits |= 1u << j;
          break;
        }
  }
  cover[t] = uint8_t(bits);
}

// Clears the tiles of each layer's spread image that the layer covers (grid: tiles, layers).
__global__ void __launch_bounds__(kBlock)
    clear_kernel(const uint8_t* __restrict__ cover, int w, int h, uint4* __restrict__ images) {
  const int j = blockIdx.z;
  if (!((cover[blockIdx.y * gridDim.x + blockIdx.x] >> j) & 1u)) return;
  const int x = blockIdx.x * kTile + threadIdx.x;
  if (x >= w) return;
  uint4* d = images + size_t(j) * size_t(w) * size_t(h);
  for (int i = 0; i < kRows; ++i) {
    const int y = blockIdx.y * kTile + threadIdx.y + 8 * i;
    if (y < h) d[size_t(y) * size_t(w) + size_t(x)] = make_uint4(0u, 0u, 0u, 0u);
  }
}

// The window of a tile for radius R: (32 + 2R + 1)^2 words per channel, each channel's plane padded to
// 8 mod 32 words (the flush reads 8 pixels x 4 channels per warp without bank conflicts).
struct Window {
  int ww, plane;
  __host__ __device__ explicit Window(int R) : ww(kTile + 2 * R + 1) { plane = (ww * ww + 31) / 32 * 32 + 8; }
  __host__ __device__ size_t bytes() const { return size_t(plane) * 16; }
};

// The interior tiles' corner tables (spread_tile_kernel), one per layer whose window fits: per radius r in
// 0..R, kMaxSpreadRects int4 (rectangle i's corners (x0, y0) +, (x1 + 1, y0) -, (x0, y1 + 1) -, (x1 + 1,
// y1 + 1) + as byte offsets in the window from the pixel's own word), then per radius its dof::SpreadInfo
// (weighted area, components). Global memory, read through L1: in shared memory they cost the main layer of the bench's frame a
// block per SM (five windows at R = 10 leave 2.4 KB of the SM's 228 KB, five tables take 7.5 KB).
// A window of 4 planes fits in 227 KB of shared memory up to R = 43 (on sm_90); the host sends a layer of
// larger R, or whose window does not fit on the device at hand, through global memory, so the tables need
// no more radii (47 leaves a few to spare).
constexpr int kMaxWindowR = 47;
constexpr size_t kCornerTable =
    size_t(kMaxWindowR + 1) * (dof::kMaxSpreadRects * sizeof(int4) + sizeof(dof::SpreadInfo));

__device__ __forceinline__ const int4* corner_offsets(const char* table, int j) {
  return reinterpret_cast<const int4*>(table + size_t(j) * kCornerTable);
}
__device__ __forceinline__ const uint4* corner_infos(const char* table, int j) {
  return reinterpret_cast<const uint4*>(table + size_t(j) * kCornerTable +
                                        size_t(kMaxWindowR + 1) * dof::kMaxSpreadRects * sizeof(int4));
}

// Grid: the layers; radius[j] is layer j's window radius R (or -1: no window).
struct WindowRadii {
  int R[dof::kMaxLayers];
};
// With cat-eye, grid (layers, bins): table j * bins + b from bin b's apertures (max_r + 1 radii a bin).
__global__ void __launch_bounds__(kBlock)
    corner_table_kernel(const dof::Rect* __restrict__ rects, const dof::SpreadInfo* __restrict__ info,
                        WindowRadii radii, int max_r, char* __restrict__ table) {
  const int j = blockIdx.x, b = blockIdx.y, R = radii.R[j];
  if (R < 0) return;
  rects += size_t(b) * size_t(max_r + 1) * dof::kMaxSpreadRects, info += size_t(b) * size_t(max_r + 1);
  const int t_at = j * int(gridDim.y) + b;
  const int ww = kTile + 2 * R + 1;
  int4* off = const_cast<int4*>(corner_offsets(table, t_at));
  dof::SpreadInfo* in = reinterpret_cast<dof::SpreadInfo*>(const_cast<uint4*>(corner_infos(table, t_at)));
  for (int t = threadIdx.x; t < (R + 1) * dof::kMaxSpreadRects; t += kBlock) {
    const dof::Rect q = rects[t];
    const int y0 = q.y0 * ww, y1 = (q.y1 + 1) * ww;
    off[t] = make_int4(4 * (y0 + q.x0), 4 * (y0 + q.x1 + 1), 4 * (y1 + q.x0), 4 * (y1 + q.x1 + 1));
  }
  for (int r = threadIdx.x; r <= R; r += kBlock) in[r] = info[r];
}

// A shared-memory add at a 32-bit shared address, its result unused.
__device__ __forceinline__ void red_shared(uint32_t at, uint32_t v) {
  asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(at), "r"(v) : "memory");
}

// Layer j's pixels of a tile add their deltas into the tile's window in shared memory (every aperture of
// layer j lies within the square of radius R, the layer's bound (layer_radius): the window holds every
// corner); the window's SAT is taken (its rows in place, then each column's running sums) and its non-zero
// words added to layer j's spread image d.
// A window's SAT is 0 right of and below it (every splat's rectangles lie inside it; those the image's
// right or bottom edge clips lose their corners beyond the edge, the window reaching that edge), so the
// SAT of the layer's delta image is the sum of its windows' SATs: d is that SAT once every tile has added
// its own, with no SAT pass over the image (and 0 on the tiles the layer does not cover).
// Two instances: Mixed = false over every tile (grid: tiles), leaving those that hold a split pixel to
// Mixed = true, launched over the list of those tiles (grid: their count; tile_splits_kernel's list). Each
// has its own registers: the split's arithmetic, inline in one kernel, spilled in the plain loop (measured:
// spread phase +0.08 to +0.15 ms on the bench's frame, which has no split pixel).
template <bool Mixed>
__global__ void __launch_bounds__(kBlock)
    spread_tile_kernel(const uchar4* __restrict__ img, const float* __restrict__ coc,
                       const uint32_t* __restrict__ mixed, int w, int h, dof::Layers layers, int j, int R,
                       int max_r, const dof::Rect* __restrict__ rects, const dof::SpreadInfo* __restrict__ info,
                       const uint16_t* __restrict__ lin, const uint8_t* __restrict__ present,
                       const uint8_t* __restrict__ splits, const unsigned* __restrict__ split_list,
                       const char* __restrict__ table, bool cat_eye, uint32_t* __restrict__ d) {
  int tx0, ty0;
  if (Mixed) {
    const int tile = int(split_list[blockIdx.x]), tx = (w + kTile - 1) / kTile;
    if (!((present[tile] >> j) & 1u)) return;
    tx0 = (tile % tx) * kTile, ty0 = (tile / tx) * kTile;
  } else {
    // Block row 0 takes the last tile row, row b > 0 tile row b - 1: the bottom edge's tiles (R more rows of
    // virtual pixels each) start in the first wave instead of lengthening the last one. Both bytes loaded
    // before either is tested: one memory latency at the block's start, not two.
    const int tile_y = (int(blockIdx.y) + int(gridDim.y) - 1) % int(gridDim.y),
              tile = tile_y * int(gridDim.x) + int(blockIdx.x);
    const unsigned here = present[tile], split = splits[tile];
    if (split || !((here >> j) & 1u)) return;
    tx0 = int(blockIdx.x) * kTile, ty0 = tile_y * kTile;
  }
  extern __shared__ uint4 window_storage[];
  uint32_t* win = reinterpret_cast<uint32_t*>(window_storage);
  const Window W(R);
  const int tid = threadIdx.y * 32 + threadIdx.x, ox = tx0 - R, oy = ty0 - R;
  for (int i = tid; i < W.plane; i += kBlock) window_storage[i] = make_uint4(0u, 0u, 0u, 0u);
  __syncthreads();
  // An interior tile: no virtual points, and every corner of its pixels' apertures (within R of the tile)
  // lies in the frame, so none is clipped: each fragment adds all four corners of every rectangle
  // (splat_corners, unmoved), at the offsets of layer j's corner table, to each of the four planes
  // (splat_point and splat_fragment's deltas: 2 instructions per shared add against 6 through the clipping
  // path, measured in the SASS).
  const bool interior = tx0 >= R && ty0 >= R && tx0 + kTile + R < w && ty0 + kTile + R < h;
  if (interior) {
    // With cat-eye, the tile's bins' tables (a tile is one bin: kTile == kCatEyeTile), behind and in front.
    static_assert(kTile == dof::kCatEyeTile, "a spread tile lies in one cat-eye bin");
    const int bins = cat_eye ? dof::kCatEyeBins : 1;
    const int back = cat_eye ? j * bins + dof::cat_eye_bin(tx0, ty0, w, h, false) : j,
              fore = cat_eye ? j * bins + dof::cat_eye_bin(tx0, ty0, w, h, true) : j;
    const uint32_t plane = 4u * uint32_t(W.plane), base = uint32_t(__cvta_generic_to_shared(win));
    // One fragment (colour l, splat sp, share of the pixel in 256ths) of the pixel whose own word is at a0.
    const auto splat = [&](const uint32_t l[3], dof::Splat sp, uint32_t share, uint32_t a0) {
      const uint32_t a1 = a0 + plane, a2 = a1 + plane, a3 = a2 + plane;
      for (int a = 0; a < 2; ++a) {
        const uint32_t part = a ? sp.q : 256u - sp.q;
        if (!part) continue;
        const int r = sp.r + a;
        const int at = sp.front ? fore : back;
        const uint4 raw = __ldg(corner_infos(table, at) + r);
        const dof::SpreadInfo an = *reinterpret_cast<const dof::SpreadInfo*>(&raw);
        const int4* cr = corner_offsets(table, at) + r * dof::kMaxSpreadRects;
        // A picture's aperture in front of the focus plane: each rectangle turned by 180 degrees (dof::flipped),
        // its corners' offsets k - the opposite corner's, k the offset of (1, 1).
        const bool turn = an.flip && sp.front;
        const int k = 4 * (W.ww + 1);
        // Each component (one for a flat aperture) with its own values.
        for (int c = 0, q0 = 0; c < an.comps; q0 = an.end[c], ++c) {
          uint32_t v[4];
          dof::component_values(l, part * share, an.area, an.mult[c], v);
          const uint32_t m0 = 0u - v[0], m1 = 0u - v[1], m2 = 0u - v[2], m3 = 0u - v[3];
          for (int q = q0; q < an.end[c]; ++q) {
            int4 o = __ldg(cr + q);
            if (turn) o = make_int4(k - o.w, k - o.z, k - o.y, k - o.x);
            red_shared(a0 + o.x, v[0]), red_shared(a1 + o.x, v[1]), red_shared(a2 + o.x, v[2]);
            red_shared(a3 + o.x, v[3]);
            red_shared(a0 + o.y, m0), red_shared(a1 + o.y, m1), red_shared(a2 + o.y, m2),
                red_shared(a3 + o.y, m3);
            red_shared(a0 + o.z, m0), red_shared(a1 + o.z, m1), red_shared(a2 + o.z, m2),
                red_shared(a3 + o.z, m3);
            red_shared(a0 + o.w, v[0]), red_shared(a1 + o.w, v[1]), red_shared(a2 + o.w, v[2]);
            red_shared(a3 + o.w, v[3]);
          }
        }
      }
    };
    for (int y = ty0 + int(threadIdx.y); y < ty0 + kTile; y += 8) {
      const int x = tx0 + int(threadIdx.x);
      const uint32_t at = base + 4u * uint32_t((y - oy) * W.ww + (x - ox));
      if constexpr (!Mixed) {
        const size_t i = size_t(y) * size_t(w) + size_t(x);
        const float c = __ldg(coc + i);
        if (dof::layer_of(c == c ? c : 0.f, layers) != j) continue;
        const uchar4 p = img[i];
        const uint32_t l[3] = {__ldg(lin + p.x), __ldg(lin + p.y), __ldg(lin + p.z)};
        splat(l, dof::splat_of(c, max_r), 256u, at);
      } else {
        // splat_point's fragments (mixed_fragments: the split's shares and the hidden background, from the
        // records), each with its own CoC and colour.
        mixed_fragments(img, coc, mixed, splits, lin, x, y, w, h, 1u << j,
                        [&](uint32_t share, float c, const auto& colour) {
                          if (dof::layer_of(c, layers) != j) return;
                          uint32_t l[3];
                          colour(l);
                          splat(l, dof::splat_of(c, max_r), share, at);
                        });
      }
    }
  }
  if (!interior) {
    // The tile's pixels, and on the frame's edges the virtual points beyond them within R (the tiles of the
    // first and last columns and rows reach R further out): their in-frame rectangles lie within the box of
    // radius R around the edge pixel they copy, hence inside the window.
    const int xa = tx0 == 0 ? -R : tx0, xb = tx0 + kTile >= w ? w - 1 + R : tx0 + kTile - 1;
    const int ya = ty0 == 0 ? -R : ty0, yb = ty0 + kTile >= h ? h - 1 + R : ty0 + kTile - 1;
    for (int y = ya + int(threadIdx.y); y <= yb; y += 8)
      for (int x = xa + int(threadIdx.x); x <= xb; x += 32)
        splat_point<Mixed>([&](int, int X, int Y, int k,
                               uint32_t v) { atomicAdd(win + k * W.plane + (Y - oy) * W.ww + (X - ox), v); },
                           img, coc, mixed, splits, layers, 1u << j, x, y, w, h, max_r, rects, info, lin,
                           cat_eye);
  }
  __syncthreads();
  // The window's SAT: rows, a thread per window row and channel (a warp's rows ww apart, ww odd: no bank
  // conflicts), then the columns with the flush (below).
  for (int t = tid; t < 4 * W.ww; t += kBlock) {
    const int k = t / W.ww;
    uint32_t* row = win + k * W.plane + (t - k * W.ww) * W.ww;
    uint32_t acc = 0u;
    for (int i = 0; i < W.ww; ++i) acc += row[i], row[i] = acc;
  }
  __syncthreads();
  // The columns, each sum added to d as it is made (the flush): a thread per window column and channel,
  // 8 columns x 4 channels per warp (the plane padded to 8 mod 32 words: no bank conflicts; in d, 128
  // contiguous bytes per row). A column pass of its own, then the flush reading the window again, took
  // 3 shared-memory accesses per word where this takes 1.
  for (int t = tid; t < 4 * W.ww; t += kBlock) {
    const int k = t & 3, wx = t >> 2, gx = ox + wx;
    if (gx < 0 || gx >= w) continue;
    const uint32_t* col = win + k * W.plane + wx;
    uint32_t* out = d + size_t(gx) * 4 + size_t(k);
    uint32_t acc = 0u;
    for (int wy = 0; wy < W.ww; ++wy) {
      acc += col[wy * W.ww];
      const int gy = oy + wy;
      if (acc != 0u && gy >= 0 && gy < h) atomicAdd(out + size_t(gy) * size_t(w) * 4, acc);
    }
  }
}

// The delta images' SATs in place (uint32 wrap-around; layer blockIdx.y or blockIdx.z), in four steps:
// rows (a warp per row, 4 consecutive pixels per lane), the column sums of each band of kBand rows, their
// exclusive prefix over the bands, and the columns (each band from its prefix).
constexpr int kBand = 32;

__device__ __forceinline__ uint4 add4(uint4 a, uint4 b) {
  return make_uint4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

__global__ void __launch_bounds__(kBlock) sat_rows_kernel(uint4* __restrict__ d, int w, int h) {
  const int lane = threadIdx.x & 31, y = blockIdx.x * (kBlock / 32) + (threadIdx.x >> 5);
  if (y >= h) return;
  uint4* row = d + size_t(blockIdx.y) * size_t(w) * size_t(h) + size_t(y) * size_t(w);
  uint4 carry = make_uint4(0u, 0u, 0u, 0u);
  for (int x0 = 0; x0 < w; x0 += 128) {
    const int xl = x0 + 4 * lane;
    uint4 v[4];
    for (int i = 0; i < 4; ++i) v[i] = xl + i < w ? row[xl + i] : make_uint4(0u, 0u, 0u, 0u);
    for (int i = 1; i < 4; ++i) v[i] = add4(v[i], v[i - 1]);
    const uint4 incl = warp::inclusive_scan(v[3], [](uint4 a, uint4 b) { return add4(a, b); });
    const uint4 base =
        add4(carry, make_uint4(incl.x - v[3].x, incl.y - v[3].y, incl.z - v[3].z, incl.w - v[3].w));
    for (int i = 0; i < 4; ++i)
      if (xl + i < w) row[xl + i] = add4(v[i], base);
    carry = add4(carry, warp::broadcast(incl, 31));
  }
}

// Grid (columns / kBlock, bands, layers).
__global__ void __launch_bounds__(kBlock)
    sat_band_sums_kernel(const uint4* __restrict__ d, int w, int h, int bands, uint4* __restrict__ sums) {
  const int x = blockIdx.x * kBlock + threadIdx.x, b = blockIdx.y;
  if (x >= w) return;
  const uint4* col = d + size_t(blockIdx.z) * size_t(w) * size_t(h) + size_t(x);
  const int y1 = min(h, (b + 1) * kBand);
  uint4 s = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll 8
  for (int y = b * kBand; y < y1; ++y) s = add4(s, col[size_t(y) * size_t(w)]);
  sums[(size_t(blockIdx.z) * bands + b) * size_t(w) + x] = s;
}

// Grid (columns / kBlock, layers): the band sums become exclusive prefixes.
__global__ void __launch_bounds__(kBlock) sat_band_prefix_kernel(uint4* __restrict__ sums, int w, int bands) {
  const int x = blockIdx.x * kBlock + threadIdx.x;
  if (x >= w) return;
  uint4* s = sums + size_t(blockIdx.y) * bands * size_t(w) + x;
  uint4 run = make_uint4(0u, 0u, 0u, 0u);
  for (int b = 0; b < bands; ++b) {
    const uint4 t = s[size_t(b) * size_t(w)];
    s[size_t(b) * size_t(w)] = run;
    run = add4(run, t);
  }
}

// Grid (columns / kBlock, bands, layers).
__global__ void __launch_bounds__(kBlock)
    sat_columns_kernel(uint4* __restrict__ d, int w, int h, int bands, const uint4* __restrict__ sums) {
  const int x = blockIdx.x * kBlock + threadIdx.x, b = blockIdx.y;
  if (x >= w) return;
  uint4* col = d + size_t(blockIdx.z) * size_t(w) * size_t(h) + size_t(x);
  uint4 run = sums[(size_t(blockIdx.z) * bands + b) * size_t(w) + x];
  const int y1 = min(h, (b + 1) * kBand);
#pragma unroll 8
  for (int y = b * kBand; y < y1; ++y) {
    run = add4(run, col[size_t(y) * size_t(w)]);
    col[size_t(y) * size_t(w)] = run;
  }
}

// The boxes of each layer's tiles (tile coordinates: min x, min y, max x, max y; preset to ~0 and 0). Each
// warp reduces its 32 tiles first and lane 0 adds the warp's box: one atomic per warp, layer and bound (a
// thread per tile, up to 4 per layer, took 20 us at 4K on the 24 contended words, measured).
__global__ void __launch_bounds__(kBlock)
    layer_boxes_kernel(const uint8_t* __restrict__ present, int tx, int ty, unsigned* __restrict__ box) {
  const int t = blockIdx.x * kBlock + threadIdx.x;
  const bool in = t < tx * ty;
  const unsigned bits = in ? present[t] : 0u, x = in ? unsigned(t % tx) : 0u, y = in ? unsigned(t / tx) : 0u;
  const unsigned any = __reduce_or_sync(0xffffffffu, bits);
  for (int j = 0; any >> j; ++j) {
    if (!((any >> j) & 1u)) continue;
    const bool has = (bits >> j) & 1u;
    const unsigned x0 = __reduce_min_sync(0xffffffffu, has ? x : ~0u),
                   y0 = __reduce_min_sync(0xffffffffu, has ? y : ~0u),
                   x1 = __reduce_max_sync(0xffffffffu, has ? x : 0u),
                   y1 = __reduce_max_sync(0xffffffffu, has ? y : 0u);
    if ((threadIdx.x & 31u) == 0u) {
      atomicMin(box + j, x0), atomicMin(box + dof::kMaxLayers + j, y0);
      atomicMax(box + 2 * dof::kMaxLayers + j, x1), atomicMax(box + 3 * dof::kMaxLayers + j, y1);
    }
  }
}

// The fill tables' slices, all in one pass over the union of their boxes (the CoC map and the image read
// once for every table). Slice b covers its box (ox, oy, bw x bh blocks of dof::kFillBlock x kFillBlock
// pixels; pitch bw): per block, the sums of (12-bit linear colour, 1) over its pixels in the frame of
// layers j0..j1: one RGBA16 image (Wide: the SAT builder takes 16-bit input) or its low bytes (lo) and high
// bytes (hi) as two RGBA8 images. Either gives the same tables mod 2^32: SAT(lo) + 2^8 SAT(hi) = SAT(lo + 2^8
// hi) in uint32 wrap-around. Those are the pixels of CoC c (NaN as 0) with lo <= c < hi (dof::layer_of with
// increasing edges: layer >= j0 when !(c < edge[j0]), j0 > 0; layer <= j1 when c < edge[j1 + 1], j1 < count -
// 1; the host passes -inf and +inf otherwise), compared in registers (layer_of's loop over the edges keeps a
// local copy).
struct FillSlices {
  int n;  // slices
  int ox[dof::kMaxLayers + 1], oy[dof::kMaxLayers + 1], bw[dof::kMaxLayers + 1], bh[dof::kMaxLayers + 1];
  float lo[dof::kMaxLayers + 1], hi[dof::kMaxLayers + 1];
  void* out[dof::kMaxLayers + 1];
};

// Grid over the union box (ux, uy, uw x uh blocks).
template <bool Wide>
__global__ void __launch_bounds__(kBlock)
    fill_slices_kernel(const uchar4* __restrict__ img, const float* __restrict__ coc, int w, int h, int ux,
                       int uy, int uw, int uh, const uint16_t* __restrict__ lin, FillSlices f) {
  constexpr int B = dof::kFillBlock;
  const int ix = blockIdx.x * blockDim.x + threadIdx.x, iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= uw || iy >= uh) return;
  const int x = ix + ux, y = iy + uy, px0 = x * B, py0 = y * B;
  // The block's pixels: CoC (in the frame: +inf beyond it, in no slice) and linear colour.
  float c[B * B];
  uint32_t l[B * B][3];
#pragma unroll
  for (int k = 0; k < B * B; ++k) {
    const int px = px0 + k % B, py = py0 + k / B;
    c[k] = INFINITY, l[k][0] = l[k][1] = l[k][2] = 0u;
    if (px >= w || py >= h) continue;
    const size_t g = size_t(py) * size_t(w) + size_t(px);
    const float v = __ldg(coc + g);
    c[k] = v == v ? v : 0.f;
    const uchar4 p = img[g];
    l[k][0] = __ldg(lin + p.x), l[k][1] = __ldg(lin + p.y), l[k][2] = __ldg(lin + p.z);
  }
  for (int b = 0; b < f.n; ++b) {
    const int sx = x - f.ox[b], sy = y - f.oy[b];
    if (sx < 0 || sy < 0 || sx >= f.bw[b] || sy >= f.bh[b]) continue;
    uint32_t v[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int k = 0; k < B * B; ++k) {
      if (c[k] < f.lo[b] || !(c[k] < f.hi[b])) continue;
      v[0] += l[k][0], v[1] += l[k][1], v[2] += l[k][2], v[3] += 1u;
    }
    const size_t i = size_t(sy) * size_t(f.bw[b]) + size_t(sx);
    if (Wide) {
      static_cast<ushort4*>(f.out[b])[i] = make_ushort4(v[0], v[1], v[2], v[3]);
    } else {
      uchar4* lo = static_cast<uchar4*>(f.out[b]);
      lo[i] = make_uchar4(v[0] & 255u, v[1] & 255u, v[2] & 255u, v[3]);
      lo[size_t(f.bw[b]) * size_t(f.bh[b]) + i] = make_uchar4(v[0] >> 8, v[1] >> 8, v[2] >> 8, 0);
    }
  }
}

// A built SAT over its box [ox, x1] x [oy, y1] of blocks (pitch `pitch`): the RGBA16 slice's (hi null) or the
// low and high bytes' tables; or nothing (lo null: no pixel). No pixel of its layers lies outside the box, so
// the frame's inclusive SAT at block (x, y) is the box's at (min(x, x1), min(y, y1)), and 0 left of or above
// the box.
struct FillTable {
  const uint4* lo;
  const uint4* hi;
  int ox, oy, x1, y1, pitch;
};

struct SpreadTables {
  const uint4* spread[dof::kMaxLayers];  // the layers' spread images (their delta images' SATs)
  const uint8_t* cover;                  // per tile: the layers whose spread images hold it
  // Fill table t (layers 0..t) is built table plus[t], less built table minus[t] when minus[t] >= 0 (the
  // table of every layer less that of layers t + 1..count - 1: exact in uint32 wrap-around).
  FillTable built[dof::kMaxLayers + 1];
  int plus[dof::kMaxLayers], minus[dof::kMaxLayers];
  __device__ __forceinline__ void add(dof::Sum4& s, int b, int x, int y, bool sub) const {
    const FillTable& f = built[b];
    if (!f.lo || x < f.ox || y < f.oy) return;
    const size_t i = size_t(min(y, f.y1) - f.oy) * size_t(f.pitch) + size_t(min(x, f.x1) - f.ox);
    const uint4 a = __ldg(f.lo + i), c = f.hi ? __ldg(f.hi + i) : make_uint4(0u, 0u, 0u, 0u);
    const uint32_t v[4] = {a.x + (c.x << 8), a.y + (c.y << 8), a.z + (c.z << 8), a.w + (c.w << 8)};
    for (int k = 0; k < 4; ++k) s.c[k] = sub ? s.c[k] - v[k] : s.c[k] + v[k];
  }
  // The fill tables' tap (dof::shape_sum): table t's (colour, count) SAT at (x, y).
  __device__ __forceinline__ dof::Sum4 operator()(int t, int x, int y) const {
    dof::Sum4 s = {{0u, 0u, 0u, 0u}};
    if (x < 0 || y < 0) return s;
    add(s, plus[t], x, y, false);
    if (minus[t] >= 0) add(s, minus[t], x, y, true);
    return s;
  }
};

__global__ void __launch_bounds__(kBlock)
    spread_composite_kernel(SpreadTables tables, dof::Layers layers, const uint8_t* __restrict__ enc,
                            const uchar4* __restrict__ img, int reach, float one, int w, int h,
                            uchar4* __restrict__ out) {
  // The layer edges in shared memory: spread_pixel takes them by pointer, which would otherwise copy the
  // whole dof::Layers to local memory in every thread.
  __shared__ float edge[dof::kMaxLayers + 1];
  if (threadIdx.x == 0 && threadIdx.y == 0) {
#pragma unroll
    for (int k = 0; k <= dof::kMaxLayers; ++k) edge[k] = layers.edge[k];
  }
  __syncthreads();
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const size_t i = size_t(y) * size_t(w) + size_t(x);
  const unsigned cover = __ldg(tables.cover + (y / kTile) * ((w + kTile - 1) / kTile) + x / kTile);
  const auto spread = [&](int j) {
    const uint4 a = (cover >> j) & 1u ? __ldg(tables.spread[j] + i) : make_uint4(0u, 0u, 0u, 0u);
    return dof::Sum4{{a.x, a.y, a.z, a.w}};
  };
  float v[3];
  dof::spread_pixel(spread, tables, layers.count, edge, reach, one, x, y, w, h, v);
  out[i] = make_uchar4(dof::encode(v[0], true, enc), dof::encode(v[1], true, enc),
                       dof::encode(v[2], true, enc), img[i].w);
}

}  // namespace

DofSideStream::~DofSideStream() {
  if (fork) cudaEventDestroy(cudaEvent_t(fork));
  if (join) cudaEventDestroy(cudaEvent_t(join));
  if (stream) cudaStreamDestroy(cudaStream_t(stream));
}

namespace {

void make_side_stream(DofSideStream& s) {
  if (s.stream) return;
  cudaStream_t st = nullptr;
  cudaEvent_t f = nullptr, j = nullptr;
  SATLAB_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "spread side stream");
  s.stream = st;
  SATLAB_CUDA(cudaEventCreateWithFlags(&f, cudaEventDisableTiming), "spread side stream");
  s.fork = f;
  SATLAB_CUDA(cudaEventCreateWithFlags(&j, cudaEventDisableTiming), "spread side stream");
  s.join = j;
}

}  // namespace

namespace {

// One frame of the spread in the workspace: what every phase reads. The workspace's buffers as the shaped
// modes lay them out (aperture rectangles then their counts; the sRGB -> linear table then the linear ->
// sRGB one), the rectangles merged (merge_bands) under a key of their own, so that the shaped modes upload
// theirs again after the spread mode and the other way round; `images` holds the layers' spread images and
// the fill slices, `tables` the fill tables, the band sums of the SAT pass, the tiles' layer sets, the
// layers' tile boxes and tile lists, the pixels' splits and the corner tables.
struct SpreadFrame {
  SpreadFrame(const DofArgs& args, DofWorkspace& workspace) : a(args), ws(workspace) {}
  const DofArgs& a;
  DofWorkspace& ws;
  cudaStream_t st;
  int w, h, max_r;
  size_t n;
  dof::Layers layers;
  int L, fills, bands, tx, ty;
  size_t tile_count, spread_bytes;
  std::string size;
  const dof::Rect* rects;
  const dof::SpreadInfo* info;
  bool cat_eye;  // SpreadApertures::bins > 1: each point's table is its bin's (dof::cat_eye_bin)
  uint32_t one;  // SpreadApertures::one
  const uint16_t* lin;
  const float* coc;
  const uchar4* img;
  uint32_t* spread;
  uchar4* slices;
  uint4* band_sums;
  uint8_t *present, *cover, *splits;
  unsigned *boxes, *split_count, *split_list, *step_count, *step_list;
  uint32_t* mixed;
  char* corner_table;
  dim3 block, grid, tiles;
  unsigned global_layers = 0;  // the layers whose windows do not fit in shared memory
  Reach reach{};
  WindowRadii radii{};
};

// The aperture uploaded and the buffers grown and laid out (no work enqueued but the upload).
SpreadFrame spread_frame(const DofArgs& a) {
  const Params& p = *a.params;
  auto& ws = *static_cast<DofWorkspace*>(a.workspace);
  const int w = a.width, h = a.height, max_r = shaped_max_radius(p);
  const dof::Layers layers = frame_layers(p, p.dof_layers, a.depth);
  const int L = layers.count, fills = L - 1, bands = (h + kBand - 1) / kBand;
  const int tx = (w + kTile - 1) / kTile, ty = (h + kTile - 1) / kTile;
  SpreadFrame f(a, ws);
  f.st = cudaStream_t(a.stream);
  f.w = w, f.h = h, f.max_r = max_r, f.n = size_t(w) * size_t(h), f.layers = layers;
  f.L = L, f.fills = fills, f.bands = bands, f.tx = tx, f.ty = ty;
  const size_t n = f.n;
  f.size = std::to_string(w) + "x" + std::to_string(h);

  // The spread kernels take their own apertures (spread_apertures: the aperture table with equal adjacent
  // bands merged, fewer corners for the same deltas, and the profile's components), under a key of their
  // own: kMaxSpreadRects rectangles per radius, then a dof::SpreadInfo per radius.
  const std::string key = "spread/" + spread_aperture_key(p, max_r);
  // With cat-eye, kCatEyeBins tables of max_r + 1 radii each (SpreadApertures::bins).
  const size_t slots = p.cat_eye > 0.f ? size_t(dof::kCatEyeBins) * size_t(max_r + 1) : size_t(dof::kMaxShapedRadius + 1);
  const size_t rect_bytes = slots * dof::kMaxSpreadRects * sizeof(dof::Rect);
  SpreadApertures ap;  // kept until upload_shape has waited for the copies
  upload_shape(ws.rects, ws.luts, ws.shape_key, key, p.response_shoulder, a.stream,
               rect_bytes + slots * sizeof(dof::SpreadInfo),
               [&](DofBuffer& b, void* stream) {
                 const cudaStream_t s = cudaStream_t(stream);
                 ap = spread_apertures(p, max_r);
                 SATLAB_CUDA(cudaMemcpyAsync(b.p, ap.rects.data(), ap.rects.size() * sizeof(dof::Rect),
                                             cudaMemcpyHostToDevice, s),
                             "spread apertures");
                 SATLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(b.p) + rect_bytes, ap.info.data(),
                                             ap.info.size() * sizeof(dof::SpreadInfo), cudaMemcpyHostToDevice,
                                             s),
                             "spread apertures");
               });
  f.one = spread_one(p);
  f.cat_eye = p.cat_eye > 0.f;
  // images: spread images (16 B per pixel and layer), fill slices (8 B per block of each table's box);
  // tables: fill tables (32 B per block of each table's box), band sums (16 B per column, band and layer),
  // the tiles' present and cover sets and whether they hold a split pixel (1 B each), the layers' tile
  // boxes, the pixels' records (their splits and hidden backgrounds, 4 B per pixel and per pixel of the
  // frame's edges: dof::mixed_of, dof::hidden_of, mixed_record), the layers' corner tables (kCornerTable
  // each). The fill tables never need more than count - 1 frames of blocks (the layout below reads at most
  // as many blocks as the frame-wide tables).
  const size_t fill_n = size_t(dof::fill_blocks(w)) * size_t(dof::fill_blocks(h));
  const size_t spread_bytes = n * 16 * size_t(L), fill_bytes = fill_n * 32 * size_t(fills),
               sums_bytes = size_t(w) * size_t(bands) * size_t(L) * 16, tile_count = size_t(tx) * size_t(ty);
  f.tile_count = tile_count, f.spread_bytes = spread_bytes;
  grow(ws.images, spread_bytes + fill_n * 8 * size_t(fills), "spread images and fill slices");
  // boxes: 4 kMaxLayers words, then the count of tiles holding a split and their list, then the count of
  // tiles with a CoC step and their list.
  const size_t boxes_at = fill_bytes + sums_bytes + (3 * tile_count + 3) / 4 * 4,
               mixed_at = boxes_at + (4 * dof::kMaxLayers + 2 + 2 * tile_count) * 4;
  const size_t corners_at = (mixed_at + (n + 2 * size_t(w) + 2 * size_t(h)) * 4 + 15) / 16 * 16;
  // With cat-eye, a corner table per layer and bin.
  grow(ws.tables, corners_at + kCornerTable * dof::kMaxLayers * size_t(p.cat_eye > 0.f ? dof::kCatEyeBins : 1),
       "spread tables");
  f.rects = static_cast<const dof::Rect*>(ws.rects.p);
  f.info = reinterpret_cast<const dof::SpreadInfo*>(static_cast<const char*>(ws.rects.p) + rect_bytes);
  f.lin = static_cast<const uint16_t*>(ws.luts.p);
  f.coc = static_cast<const float*>(a.coc);
  f.img = static_cast<const uchar4*>(a.image);
  f.spread = static_cast<uint32_t*>(ws.images.p);
  f.slices = reinterpret_cast<uchar4*>(static_cast<char*>(ws.images.p) + spread_bytes);
  f.band_sums = reinterpret_cast<uint4*>(static_cast<char*>(ws.tables.p) + fill_bytes);
  f.present = reinterpret_cast<uint8_t*>(static_cast<char*>(ws.tables.p) + fill_bytes + sums_bytes);
  f.cover = f.present + tile_count;
  f.splits = f.cover + tile_count;
  f.boxes = reinterpret_cast<unsigned*>(static_cast<char*>(ws.tables.p) + boxes_at);
  f.split_count = f.boxes + 4 * dof::kMaxLayers;
  f.split_list = f.split_count + 1;
  f.step_count = f.split_list + tile_count;
  f.step_list = f.step_count + 1;
  f.mixed = reinterpret_cast<uint32_t*>(static_cast<char*>(ws.tables.p) + mixed_at);
  f.corner_table = static_cast<char*>(ws.tables.p) + corners_at;
  f.block = dim3(32, 8), f.grid = dim3((unsigned(w) + 31) / 32, (unsigned(h) + 7) / 8);
  f.tiles = dim3(unsigned(tx), unsigned(ty));
  return f;
}

// A kernel's dynamic shared memory limit is one attribute for the whole process, while pipelines on
// several threads (the tiled executor's workers) launch spread_tile_kernel with windows of their own
// sizes: the limit only rises, under a lock, so that no thread lowers it below another's launch.
template <bool Mixed>
void allow_window_bytes(size_t bytes) {
  static std::mutex lock;
  static size_t allowed = 0;
  std::lock_guard<std::mutex> hold(lock);
  if (bytes <= allowed) return;
  const auto kernel = spread_tile_kernel<Mixed>;
  SATLAB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
              "spread_tile_kernel shared memory");
  allowed = bytes;
}

// The layers' tiles without a split pixel (mixed_tiles false: every tile of the grid) or with one (the
// `count` tiles of the split list), each layer whose window fits on its own stream.
void tile_pass(const SpreadFrame& f, bool mixed_tiles, unsigned count) {
  for (int j = 0; j < f.L; ++j) {
    if ((f.global_layers >> j) & 1u) continue;
    const int R = layer_radius(f.layers, j, f.max_r);
    const size_t bytes = Window(R).bytes();
    const auto kernel = mixed_tiles ? spread_tile_kernel<true> : spread_tile_kernel<false>;
    mixed_tiles ? allow_window_bytes<true>(bytes) : allow_window_bytes<false>(bytes);
    kernel<<<mixed_tiles ? dim3(count) : f.tiles, f.block, bytes, cudaStream_t(f.ws.layer[j].stream)>>>(
        f.img, f.coc, f.mixed, f.w, f.h, f.layers, j, R, f.max_r, f.rects, f.info, f.lin, f.present,
        f.splits, f.split_list, f.corner_table, f.cat_eye, f.spread + size_t(j) * f.n * 4);
    SATLAB_LAUNCHED("spread_tile_kernel", f.size + " layer " + std::to_string(j));
  }
}

// Phase "spread", up to the tiles that hold a split pixel: each layer's radius bound, whether its window
// fits in shared memory, and its reach in tiles; the tiles' layer sets, the pixels' splits, the layers'
// tile boxes (read back on the side stream while the spread runs), the cover sets, the spread images'
// covered tiles cleared, the corner tables; then the tiles without a split, a stream per layer (each adds
// to its own spread image only, so that one layer's blocks fill the SMs that another's last wave, or a few
// split tiles, leave idle), and the layers whose windows do not fit, straight into global memory.
void spread_tiles(SpreadFrame& f) {
  const cudaStream_t st = f.st;
  int dev = 0, optin = 0;
  SATLAB_CUDA(cudaGetDevice(&dev), "spread tiles");
  SATLAB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "spread tiles");
  for (int j = 0; j < dof::kMaxLayers; ++j) f.radii.R[j] = -1;
  for (int j = 0; j < f.L; ++j) {
    const int R = layer_radius(f.layers, j, f.max_r);
    f.reach.tiles[j] = 1 + R / kTile;
    if (R > kMaxWindowR || Window(R).bytes() > size_t(optin))
      f.global_layers |= 1u << j;
    else
      f.radii.R[j] = R;
  }
  int sms = 0;
  SATLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "spread tiles");
  SATLAB_CUDA(cudaMemsetAsync(f.split_count, 0, sizeof(unsigned), st), "split tiles");
  SATLAB_CUDA(cudaMemsetAsync(f.step_count, 0, sizeof(unsigned), st), "step tiles");
  const unsigned tile_blocks = unsigned((f.tile_count + kBlock - 1) / kBlock);
  tile_layers_kernel<<<f.tiles, f.block, 0, st>>>(f.coc, f.w, f.h, f.layers, f.present, f.splits, f.step_count,
                                                  f.step_list);
  SATLAB_LAUNCHED("tile_layers_kernel", f.size);
  size_t split_blocks = std::min(f.tile_count, size_t(4) * size_t(std::max(sms, 1)));
  if (spread_split_blocks_for_tests > 0)
    split_blocks = std::min(split_blocks, size_t(spread_split_blocks_for_tests));
  tile_splits_kernel<<<unsigned(split_blocks), f.block, 0, st>>>(f.img, f.coc, f.w, f.h, f.layers, f.lin, f.mixed,
                                                                 f.step_count, f.step_list, f.present, f.splits,
                                                                 f.split_count, f.split_list);
  SATLAB_LAUNCHED("tile_splits_kernel", f.size);
  if (f.fills > 0) {
    // The layers' tile boxes, read back on the side stream (read_layer_boxes) while the spread runs.
    SATLAB_CUDA(cudaMemsetAsync(f.boxes, 0xff, 2 * dof::kMaxLayers * sizeof(unsigned), st), "layer boxes");
    SATLAB_CUDA(cudaMemsetAsync(f.boxes + 2 * dof::kMaxLayers, 0, 2 * dof::kMaxLayers * sizeof(unsigned), st),
                "layer boxes");
    layer_boxes_kernel<<<tile_blocks, kBlock, 0, st>>>(f.present, f.tx, f.ty, f.boxes);
    SATLAB_LAUNCHED("layer_boxes_kernel", f.size);
  }
  make_side_stream(f.ws.side);
  SATLAB_CUDA(cudaEventRecord(cudaEvent_t(f.ws.side.fork), st), "spread fork");
  cover_kernel<<<tile_blocks, kBlock, 0, st>>>(f.present, f.tx, f.ty, f.L, f.reach, f.global_layers, f.cover);
  SATLAB_LAUNCHED("cover_kernel", f.size);
  clear_kernel<<<dim3(unsigned(f.tx), unsigned(f.ty), unsigned(f.L)), f.block, 0, st>>>(
      f.cover, f.w, f.h, reinterpret_cast<uint4*>(f.spread));
  SATLAB_LAUNCHED("clear_kernel", f.size);
  corner_table_kernel<<<dim3(unsigned(f.L), f.cat_eye ? unsigned(dof::kCatEyeBins) : 1u), kBlock, 0, st>>>(
      f.rects, f.info, f.radii, f.max_r, f.corner_table);
  SATLAB_LAUNCHED("corner_table_kernel", f.size);
  static_assert(sizeof(f.ws.layer) / sizeof(f.ws.layer[0]) >= size_t(dof::kMaxLayers), "a stream per layer");
  const cudaEvent_t cleared = [&] {
    make_side_stream(f.ws.layer[0]);
    return cudaEvent_t(f.ws.layer[0].fork);
  }();
  SATLAB_CUDA(cudaEventRecord(cleared, st), "spread layers fork");
  for (int j = 0; j < f.L; ++j) {
    if ((f.global_layers >> j) & 1u) continue;
    make_side_stream(f.ws.layer[j]);
    SATLAB_CUDA(cudaStreamWaitEvent(cudaStream_t(f.ws.layer[j].stream), cleared, 0), "spread layers fork");
  }
  tile_pass(f, false, 0);
  if (f.global_layers) {
    const dim3 plane((unsigned(f.w + 2 * f.max_r) + 31) / 32, (unsigned(f.h + 2 * f.max_r) + 7) / 8);
    spread_kernel<<<plane, f.block, 0, st>>>(f.img, f.coc, f.mixed, f.splits, f.w, f.h, f.layers, f.global_layers,
                                             f.max_r, f.rects, f.info, f.lin, f.cat_eye, f.spread);
    SATLAB_LAUNCHED("spread_kernel", f.size);
  }
}

// The side stream joins the spread (phase "fill" begins there when there are fill tables) and reads back
// the layers' tile boxes and the split tiles' count into hb (4 kMaxLayers + 1 words), waiting for them.
void read_layer_boxes(const SpreadFrame& f, unsigned* hb, size_t hb_bytes) {
  const cudaStream_t side = cudaStream_t(f.ws.side.stream);
  SATLAB_CUDA(cudaStreamWaitEvent(side, cudaEvent_t(f.ws.side.fork), 0), "spread fork");
  if (f.fills > 0 && f.a.side_phase) f.a.side_phase("fill", side, true);
  SATLAB_CUDA(cudaMemcpyAsync(hb, f.boxes, hb_bytes, cudaMemcpyDeviceToHost, side), "layer boxes");
  SATLAB_CUDA(cudaStreamSynchronize(side), "layer boxes");
}

// The rest of phase "spread": the tiles that hold a split pixel (`count`, read back), then every layer's
// stream joins the main one.
void spread_split_tiles(const SpreadFrame& f, unsigned count) {
  if (count > 0) tile_pass(f, true, count);
  for (int j = 0; j < f.L; ++j) {
    if ((f.global_layers >> j) & 1u) continue;
    SATLAB_CUDA(cudaEventRecord(cudaEvent_t(f.ws.layer[j].join), cudaStream_t(f.ws.layer[j].stream)),
                "spread layers join");
    SATLAB_CUDA(cudaStreamWaitEvent(f.st, cudaEvent_t(f.ws.layer[j].join), 0), "spread layers join");
  }
}

// Phase "fill", on the side stream beside the spread (the spread's tiles are bound by shared-memory
// atomics, the tables by memory bandwidth): fill table t (layers 0..t) is built over the box of those
// layers' tiles (hb, read_layer_boxes), or, where the layers t + 1..count - 1 reach fewer pixels, as the
// table of every layer less theirs (one table of every layer shared by all such t). Slices, then their SATs
// through the registry's SAT builder. The phase ends, and the side stream's join event is recorded, after
// the last table. Fills `tables`' fill tables.
void fill_tables(const SpreadFrame& f, const unsigned* hb, SpreadTables& tables) {
  const cudaStream_t side = cudaStream_t(f.ws.side.stream);
  const int L = f.L, fills = f.fills;
  struct Box {
    int x0 = 1, y0 = 1, x1 = 0, y1 = 0;  // tiles; x0 > x1: empty
    void add(const Box& b) {
      if (b.x0 > b.x1) return;
      if (x0 > x1) {
        *this = b;
        return;
      }
      x0 = std::min(x0, b.x0), y0 = std::min(y0, b.y0), x1 = std::max(x1, b.x1), y1 = std::max(y1, b.y1);
    }
  };
  Box layer_box[dof::kMaxLayers];
  for (int j = 0; j < L; ++j)
    if (hb[j] <= hb[2 * dof::kMaxLayers + j])
      layer_box[j] = {int(hb[j]), int(hb[dof::kMaxLayers + j]), int(hb[2 * dof::kMaxLayers + j]),
                      int(hb[3 * dof::kMaxLayers + j])};
  // In the fill tables' blocks (dof::kFillBlock pixels square, kTile / kFillBlock per tile), widths a
  // multiple of 4 where the frame allows (the SAT builder's 16-byte loads and stores; a wider box is exact:
  // its slices hold 0 for other layers' pixels).
  static_assert(kTile % dof::kFillBlock == 0, "a tile is whole blocks");
  constexpr int kTileBlocks = kTile / dof::kFillBlock;
  const int fw = dof::fill_blocks(f.w), fh = dof::fill_blocks(f.h);
  struct PixelBox {
    int x0, y0, bw, bh;
    size_t area() const { return size_t(bw) * size_t(bh); }
  };
  const auto pixels = [&](const Box& b) {
    if (b.x0 > b.x1) return PixelBox{0, 0, 0, 0};
    int x0 = b.x0 * kTileBlocks, y0 = b.y0 * kTileBlocks;
    const int x1 = std::min(fw - 1, b.x1 * kTileBlocks + kTileBlocks - 1),
              y1 = std::min(fh - 1, b.y1 * kTileBlocks + kTileBlocks - 1);
    const int bw = std::min(fw, (x1 - x0 + 4) / 4 * 4);
    x0 = std::min(x0, fw - bw);
    return PixelBox{x0, y0, bw, y1 - y0 + 1};
  };
  PixelBox far_box[dof::kMaxLayers], near_box[dof::kMaxLayers], all;
  {
    Box fb, nr, u;
    for (int t = 0; t < fills; ++t) fb.add(layer_box[t]), far_box[t] = pixels(fb);
    for (int t = fills - 1; t >= 0; --t) nr.add(layer_box[t + 1]), near_box[t] = pixels(nr);
    for (int j = 0; j < L; ++j) u.add(layer_box[j]);
    all = pixels(u);
  }
  size_t direct = 0, subtract = all.area();
  for (int t = 0; t < fills; ++t)
    direct += far_box[t].area(), subtract += std::min(far_box[t].area(), near_box[t].area());
  const bool sub = subtract < direct;
  // The tables to build: (box, layers j0..j1); built[0] is every layer's when subtracting.
  struct Build {
    PixelBox box;
    int j0, j1;
  };
  Build build[dof::kMaxLayers + 1];
  int nb = 0;
  if (sub) build[nb++] = {all, 0, L - 1};
  for (int t = 0; t < fills; ++t) {
    tables.minus[t] = -1;
    if (sub && near_box[t].area() < far_box[t].area()) {
      tables.plus[t] = 0;
      if (near_box[t].area() > 0) tables.minus[t] = nb, build[nb++] = {near_box[t], t + 1, L - 1};
    } else {
      tables.plus[t] = nb, build[nb++] = {far_box[t], 0, t};
    }
  }
  // One RGBA16 slice and table per fill table where the SAT builder takes 16-bit input (sat_tiled, the
  // default), else two RGBA8 ones (the same sums mod 2^32, fill_slices_kernel).
  const bool wide = f.a.sat->refuses && f.a.sat->refuses(f.n, DType::RGBA16).empty();
  FillSlices fs{};
  size_t at = 0;  // blocks of the slices and tables so far
  for (int b = 0; b < nb; ++b) {
    const PixelBox& x = build[b].box;
    FillTable& t = tables.built[b];
    t = {nullptr, nullptr, x.x0, x.y0, x.x0 + x.bw - 1, x.y0 + x.bh - 1, x.bw};
    if (x.area() == 0) continue;  // no pixel of its layers: lo stays null
    const float inf = INFINITY;
    const int k = fs.n++;
    fs.ox[k] = x.x0, fs.oy[k] = x.y0, fs.bw[k] = x.bw, fs.bh[k] = x.bh;
    fs.lo[k] = build[b].j0 > 0 ? f.layers.edge[build[b].j0] : -inf;
    fs.hi[k] = build[b].j1 < L - 1 ? f.layers.edge[build[b].j1 + 1] : inf;
    fs.out[k] = f.slices + 2 * at;  // 8 B per block either way
    at += x.area();
  }
  if (fs.n > 0) {
    // Over the union of the slices' boxes (each rounded to its own width: not always within `all`'s).
    int ux0 = fs.ox[0], uy0 = fs.oy[0], ux1 = ux0 + fs.bw[0], uy1 = uy0 + fs.bh[0];
    for (int k = 1; k < fs.n; ++k)
      ux0 = std::min(ux0, fs.ox[k]), uy0 = std::min(uy0, fs.oy[k]), ux1 = std::max(ux1, fs.ox[k] + fs.bw[k]),
      uy1 = std::max(uy1, fs.oy[k] + fs.bh[k]);
    const dim3 g((unsigned(ux1 - ux0) + 31) / 32, (unsigned(uy1 - uy0) + 7) / 8);
    if (wide)
      fill_slices_kernel<true>
          <<<g, f.block, 0, side>>>(f.img, f.coc, f.w, f.h, ux0, uy0, ux1 - ux0, uy1 - uy0, f.lin, fs);
    else
      fill_slices_kernel<false>
          <<<g, f.block, 0, side>>>(f.img, f.coc, f.w, f.h, ux0, uy0, ux1 - ux0, uy1 - uy0, f.lin, fs);
    SATLAB_LAUNCHED("fill_slices_kernel", f.size);
  }
  at = 0;
  for (int b = 0; b < nb; ++b) {
    const PixelBox& x = build[b].box;
    FillTable& t = tables.built[b];
    if (x.area() == 0) continue;
    const uchar4* lo = f.slices + 2 * at;
    for (int k = 0; k < (wide ? 1 : 2); ++k) {
      SatArgs s;
      s.in = lo + size_t(k) * x.area();
      s.out = static_cast<uint4*>(f.ws.tables.p) + 2 * at + size_t(k) * x.area();
      s.width = x.bw, s.height = x.bh, s.channels = 4, s.dtype = wide ? DType::RGBA16 : DType::RGBA8;
      s.stream = side;
      f.a.sat->sat(s);
      (k == 0 ? t.lo : t.hi) = static_cast<const uint4*>(s.out);
    }
    at += x.area();
  }
  if (f.a.side_phase) f.a.side_phase("fill", side, false);
  SATLAB_CUDA(cudaEventRecord(cudaEvent_t(f.ws.side.join), side), "spread join");
}

// Phase "sat": the SATs of the layers that went to global memory (the others' spread images are their
// SATs), then the wait for the fill tables (it counts in this phase).
void global_layer_sats(const SpreadFrame& f) {
  for (int j = 0; j < f.L; ++j) {
    if (!((f.global_layers >> j) & 1u)) continue;
    auto* d4 = reinterpret_cast<uint4*>(f.spread) + size_t(j) * f.n;
    auto* sums = f.band_sums + size_t(j) * size_t(f.bands) * size_t(f.w);
    const unsigned cols = (unsigned(f.w) + kBlock - 1) / kBlock;
    sat_rows_kernel<<<dim3((unsigned(f.h) + 7) / 8, 1), kBlock, 0, f.st>>>(d4, f.w, f.h);
    SATLAB_LAUNCHED("sat_rows_kernel", f.size);
    sat_band_sums_kernel<<<dim3(cols, unsigned(f.bands), 1), kBlock, 0, f.st>>>(d4, f.w, f.h, f.bands, sums);
    SATLAB_LAUNCHED("sat_band_sums_kernel", f.size);
    sat_band_prefix_kernel<<<dim3(cols, 1), kBlock, 0, f.st>>>(sums, f.w, f.bands);
    SATLAB_LAUNCHED("sat_band_prefix_kernel", f.size);
    sat_columns_kernel<<<dim3(cols, unsigned(f.bands), 1), kBlock, 0, f.st>>>(d4, f.w, f.h, f.bands, sums);
    SATLAB_LAUNCHED("sat_columns_kernel", f.size);
  }
  if (f.fills > 0) SATLAB_CUDA(cudaStreamWaitEvent(f.st, cudaEvent_t(f.ws.side.join), 0), "spread join");
}

// Phase "composite": dof::spread_pixel per pixel from the spread sums and the fill tables.
void composite(const SpreadFrame& f, SpreadTables& tables) {
  tables.cover = f.cover;
  for (int j = 0; j < f.L; ++j) tables.spread[j] = reinterpret_cast<const uint4*>(f.spread) + size_t(j) * f.n;
  spread_composite_kernel<<<f.grid, f.block, 0, f.st>>>(tables, f.layers,
                                                        static_cast<const uint8_t*>(f.ws.luts.p) + 512, f.img,
                                                        dof::fill_reach(f.max_r), float(f.one), f.w, f.h,
                                                        static_cast<uchar4*>(f.a.out));
  SATLAB_LAUNCHED("spread_composite_kernel", f.size);
}

}  // namespace

int spread_split_blocks_for_tests = 0;

void dof_spread(const DofMode&, const DofArgs& a) {
  const auto phase = [&](const char* s) {
    if (a.stage) a.stage(s);
  };
  SpreadFrame f = spread_frame(a);
  phase("spread");
  spread_tiles(f);
  unsigned hb[4 * dof::kMaxLayers + 1];
  read_layer_boxes(f, hb, sizeof(hb));
  spread_split_tiles(f, hb[4 * dof::kMaxLayers]);
  SpreadTables tables{};
  if (f.fills > 0) fill_tables(f, hb, tables);
  phase("sat");
  global_layer_sats(f);
  phase("composite");
  composite(f, tables);
}

}  // namespace satlab::gpu
