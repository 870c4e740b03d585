// Single-pass tiled 2D SAT, 8-bit data (1 or 4 interleaved channels) -> uint32 with wrap-around, or float
// (1, 2 or 4 channels, below) -> float: sat_tiled's tiles (128 bytes x 128 rows, 256 threads,
// gpu/sat/sat_tile_common.cuh), each read once and held in registers while what lies above and left of
// it comes from decoupled look-backs (Merrill & Garland 2016) in both directions:
//   - a tile publishes each of its columns' sums and each of its rows' sums (aggregates) as soon as it
//     has loaded, then looks back up its tile column (per image column) and left along its tile row (per
//     image row), adding aggregates up to the nearest inclusive word, and publishes its inclusive sums:
//     the column's sum from the image's top down to the tile's last row, the row's from the image's left
//     edge to the tile's last column;
//   - the corner (everything above and left of the tile) comes from a third chain down the tile column:
//     each tile publishes the sum of its rows left of it (known after its row look-back) as its
//     aggregate, then that plus its own corner, which is the corner of the tile below.
// Tiles are numbered by blockIdx.x in row-major order and blocks start in that order (as CUB's decoupled
// look-back scans also assume), so every tile a look-back waits for has started, and a tile publishes its
// aggregates before it waits for anything: no deadlock. Then the tile's SAT is rebuilt from the registers as
// in sat_tiled's rebuild. Bytes: 1 + 4 per element; plus the words, 8 B per column per tile row and per row
// per tile column (1/8 B per element), read back through L2; they carry the launch's epoch instead of
// being zeroed before it (gpu/sat/sat_lookback.cuh).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "gpu/device.hpp"
#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_common.cuh"
#include "gpu/sat/sat_lookback.cuh"
#include "gpu/sat/sat_tile_common.cuh"

namespace satlab::gpu {
namespace {

using namespace sat_detail;
using namespace tile_detail;

constexpr int K = 4;     // rows per thread: 128-row tiles
constexpr int kWin = 4;  // look-back words held at once (registers: 8 would spill at 4 blocks per SM)
constexpr int kTileH = kGroups * K;
static_assert(kThreads == 2 * kTileE && kTileH == kTileE, "a thread per column, then a thread per row");

struct Words {
  unsigned long long* col;     // [nTy][E]: column x over tile row i (A), then from the image's top (P)
  unsigned long long* row;     // [nTx][H]: row y over tile column j (A), then from the image's left (P)
  unsigned long long* corner;  // [nTy][nTx]: tile row i left of tile column j (A), then with all above (P)
  int window;                  // words read at once
  unsigned epoch;              // this launch's (sat_lookback.cuh)
};

// A block per tile, row-major in blockIdx.x. MIN_BLOCKS resident per SM: 4 (64 registers) or 3 (80, as
// sat_tiled's rebuild).
template <int CH, bool VEC, int MIN_BLOCKS>
__global__ void __launch_bounds__(kThreads, MIN_BLOCKS)
    lookback_2d(const uint8_t* __restrict__ in, uint32_t* __restrict__ out, Geometry g, Words w,
                bool staged) {
  __shared__ __align__(16) uint32_t start[kGroups][kLanes * kPad];  // column partials, then group starts
  __shared__ uint32_t rows[kTileH * CH];  // the tile's row sums, then the rows' sums left of the tile
  __shared__ uint32_t warp_sum[kThreads / 32][CH];
  __shared__ uint32_t corner_s[CH];
  const int lane = threadIdx.x & (kLanes - 1), grp = threadIdx.x / kLanes, t = threadIdx.x;
  const int i = blockIdx.x / g.nTx, j = blockIdx.x % g.nTx;
  const int x0 = j * kTileE + lane * 16, y0 = i * kTileH + grp * K;

  uint4 v[K];
#pragma unroll
  for (int r = 0; r < K; ++r) v[r] = load16<VEC, true>(in, g, x0, y0 + r);
  {
    uint32_t cs[16] = {};
#pragma unroll
    for (int r = 0; r < K; ++r) {
      uint32_t b[16], s[CH] = {};
      unpack(v[r], b);
#pragma unroll
      for (int k = 0; k < 16; ++k) cs[k] += b[k], s[k % CH] += b[k];
      row_reduce<CH>(s);
      if (lane == 0)
#pragma unroll
        for (int c = 0; c < CH; ++c) rows[(grp * K + r) * CH + c] = s[c];
    }
#pragma unroll
    for (int k = 0; k < 16; k += 4)
      *reinterpret_cast<uint4*>(&start[grp][lane * kPad + k]) =
          make_uint4(cs[k], cs[k + 1], cs[k + 2], cs[k + 3]);
  }
  __syncthreads();

  // Threads 0..127: column j * kTileE + t; threads 128..255: row i * kTileH + e / CH, channel e % CH, for
  // e = t - 128, + 128, ... `mine` becomes the column's sum above the tile, or (one channel) the row's sum
  // left of it.
  uint32_t mine = 0;
  if (t < kTileE) {
    const int x = j * kTileE + t, idx = (t / 16) * kPad + t % 16;
    uint32_t s = 0;
    for (int q = 0; q < kGroups; ++q) s += start[q][idx];
    if (x < g.E) mine = chain_step<uint32_t, kWin>(w.col + size_t(x), size_t(g.E), i, s, w.window, w.epoch);
  } else {
    for (int e = t - kTileE; e < kTileH * CH; e += kThreads - kTileE) {
      const int y = i * kTileH + e / CH;
      const uint32_t s = rows[e];
      uint32_t left = 0;
      if (y < g.H)
        left = chain_step<uint32_t, kWin>(w.row + size_t(y) * CH + e % CH, size_t(g.H) * CH, j, s, w.window,
                                          w.epoch);
      rows[e] = left;  // this thread alone reads and writes rows[e] between the barriers
      mine = left;
    }
  }
  // Inclusive prefix, per channel, of the column sums above the tile along each warp (threads < 128;
  // lanes CH apart share a channel), and (one channel) the sum of the rows' left sums (threads >= 128);
  // warp totals to shared memory.
  const int wl = t & 31, warp = t >> 5;
  if (CH == 1 || t < kTileE) {  // whole warps
#pragma unroll
    for (int d = CH; d < 32; d <<= 1) {
      const uint32_t n = __shfl_up_sync(0xffffffffu, mine, d);
      if (wl >= d) mine += n;
    }
    if (wl >= 32 - CH) warp_sum[warp][wl % CH] = mine;
  }
  __syncthreads();

  if (t < CH) {
    // The corner chain, per channel: this tile row's sum left of the tile (its aggregate), then the
    // corner from the tiles above, and the two together (the corner of the tile below).
    const int c = t;
    uint32_t left = 0;
    if (CH == 1)
      for (int q = kTileE / 32; q < kThreads / 32; ++q) left += warp_sum[q][0];
    else
      for (int r = 0; r < kTileH; ++r) left += rows[r * CH + c];
    corner_s[c] = chain_step<uint32_t, kWin>(w.corner + size_t(j) * CH + c, size_t(g.nTx) * CH, i, left,
                                             w.window, w.epoch);
  }
  {
    uint32_t lsum[CH] = {};
#pragma unroll
    for (int r = 0; r < K; ++r)
#pragma unroll
      for (int c = 0; c < CH; ++c) lsum[c] += rows[(grp * K + r) * CH + c];  // 0 below the image
    group_start<CH, K>(v, lsum, &start[grp][lane * kPad]);  // the partials' last readers passed the barrier
  }
  __syncthreads();
  if (t < kTileE) {
    const int c = t % CH;
    uint32_t top = mine + corner_s[c];  // S(x, row above the tile)
    for (int q = 0; q < warp; ++q) top += warp_sum[q][c];
    scan_down_groups(top, start);
  }
  __syncthreads();
  write_rows<CH, K, VEC>(
      v, [&](int y, int c) { return rows[(y - i * kTileH) * CH + c]; }, start, out, g, j, y0, x0, staged);
}

// Float input (1, 2 or 4 interleaved channels): the same scheme on tiles 64 elements (256 bytes) wide and
// 128 rows tall held in shared memory (32 KB of input per tile, where registers would hold only half as
// much at the occupancy that hides the look-backs: 5 blocks per SM). A thread owns 4 floats of 8
// consecutive rows, loaded with cp.async straight into the tile (all 8 in flight, none held in
// registers), 16 threads span a row. Every sum is float64 (the words keep float64 with 36 mantissa bits,
// 2^-36 relative) and each output is rounded to float once, so the error is that one rounding. Row and
// corner words are per channel.
namespace f32 {

constexpr int V = 4;                          // floats per thread and row
constexpr int kTileW = 64;                    // elements
constexpr int kLanesF = kTileW / V;           // threads across a tile row
constexpr int kGroupsF = kThreads / kLanesF;  // groups of KR rows down the tile
constexpr int KR = kTileH / kGroupsF;         // rows per thread
constexpr int kBlocks = 5;                    // per SM: 48 registers, 5 x 42.5 KB of shared memory
constexpr size_t kTileBytes = size_t(kTileH) * kTileW * sizeof(float);

// 4 floats of row y from element x0 where rows are not 16-byte aligned (one load each), zeros past the
// image.
__device__ __forceinline__ void load4_unaligned(const float* __restrict__ in, const Geometry& g, int x0,
                                                int y, float (&f)[V]) {
#pragma unroll
  for (int k = 0; k < V; ++k) f[k] = 0.f;
  if (y >= g.H || x0 >= g.E) return;
  const float* p = in + size_t(y) * size_t(g.E) + size_t(x0);
#pragma unroll
  for (int k = 0; k < V; ++k)
    if (x0 + k < g.E) f[k] = __ldcs(p + k);
}

template <int CH, bool VEC>
__global__ void __launch_bounds__(kThreads, kBlocks)
    lookback_2d(const float* __restrict__ in, float* __restrict__ out, Geometry g, Words w) {
  constexpr int TW = kTileW, L = kLanesF, G = kGroupsF;
  constexpr int kRowT = kThreads - kTileH;  // first of the threads with a row each
  static_assert(TW % 32 == 0 && TW <= kRowT && V % CH == 0, "column warps, then row warps");
  extern __shared__ __align__(16) float tile[];      // [kTileH][TW]: the input
  __shared__ __align__(16) double start[G][TW + 2];  // column partials, then group starts
  __shared__ double rows[kTileH * CH];            // the tile's row sums, then the rows' sums left of the tile
  __shared__ double warp_tot[kThreads / 32][CH];  // column warps: prefix totals; row warps: left sums
  __shared__ double corner_s[CH];
  const int lane = threadIdx.x % L, grp = threadIdx.x / L, t = threadIdx.x, wl = t & 31, warp = t >> 5;
  const int i = blockIdx.x / g.nTx, j = blockIdx.x % g.nTx;
  const int x0 = j * TW + lane * V, y0 = i * kTileH + grp * KR;
  float* const mine_rows = tile + grp * KR * TW + lane * V;

  if constexpr (VEC) {
    // The thread's KR rows straight to the tile, all in flight at once and none held in registers
    // (cp.async, L2 only, marked evict-first as the register loads are); zeros below the image and past
    // its right edge.
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(mine_rows));
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
#pragma unroll
    for (int r = 0; r < KR; ++r) {
      const int y = y0 + r;
      const bool inside = y < g.H && x0 < g.E;
      const float* src = inside ? in + size_t(y) * size_t(g.E) + size_t(x0) : in;
      asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(
                       dst + unsigned(r * TW * 4)),
                   "l"(src), "r"(inside ? 16 : 0), "l"(policy)
                   : "memory");
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");  // this thread's copies, visible to it
  }
  double cs[V] = {};    // this thread's column sums over its KR rows
  constexpr int B = 2;  // rows read at once (unaligned rows: loaded, within the register budget)
#pragma unroll
  for (int r0 = 0; r0 < KR; r0 += B) {
    float f[B][V];
#pragma unroll
    for (int r = 0; r < B; ++r) {
      if constexpr (VEC) {
        const float4 q = *reinterpret_cast<const float4*>(mine_rows + (r0 + r) * TW);
        f[r][0] = q.x, f[r][1] = q.y, f[r][2] = q.z, f[r][3] = q.w;
      } else {
        load4_unaligned(in, g, x0, y0 + r0 + r, f[r]);
      }
    }
#pragma unroll
    for (int r = 0; r < B; ++r) {
      if constexpr (!VEC)
        *reinterpret_cast<float4*>(mine_rows + (r0 + r) * TW) =
            make_float4(f[r][0], f[r][1], f[r][2], f[r][3]);
      double s[CH] = {};
#pragma unroll
      for (int k = 0; k < V; ++k) cs[k] += f[r][k], s[k % CH] += f[r][k];
#pragma unroll
      for (int c = 0; c < CH; ++c) {
#pragma unroll
        for (int m = L / 2; m > 0; m >>= 1) s[c] += __shfl_xor_sync(0xffffffffu, s[c], m);
        if (lane == 0) rows[(grp * KR + r0 + r) * CH + c] = s[c];
      }
    }
  }
#pragma unroll
  for (int k = 0; k < V; k += 2)
    *reinterpret_cast<double2*>(&start[grp][lane * V + k]) = make_double2(cs[k], cs[k + 1]);
  __syncthreads();

  // Threads below TW: column j * TW + t; threads from kRowT: rows i * kTileH + e / CH, channel e % CH, for
  // e = t - kRowT, + kTileH, ... (one channel per thread). `mine` becomes the column's sum above the tile.
  double mine = 0;
  if (t < TW) {
    const int x = j * TW + t;
    double s = 0;
#pragma unroll
    for (int q = 0; q < G; ++q) s += start[q][t];
    if (x < g.E) mine = chain_step<double, kWin>(w.col + size_t(x), size_t(g.E), i, s, w.window, w.epoch);
      // Inclusive prefix along the warp, per channel (lanes CH apart share one); warp totals for the rest.
#pragma unroll
    for (int d = CH; d < 32; d <<= 1) {
      const double n = __shfl_up_sync(0xffffffffu, mine, d);
      if (wl >= d) mine += n;
    }
    if (wl >= 32 - CH) warp_tot[warp][wl % CH] = mine;
  } else if (t >= kRowT) {
    double lsum = 0;  // the left sums of this thread's rows
    for (int e = t - kRowT; e < kTileH * CH; e += kTileH) {
      const int y = i * kTileH + e / CH;
      double left = 0;
      if (y < g.H)
        left = chain_step<double, kWin>(w.row + size_t(y) * CH + e % CH, size_t(g.H) * CH, j, rows[e],
                                        w.window, w.epoch);
      rows[e] = left;  // this thread alone reads and writes rows[e] between the barriers
      lsum += left;
    }
#pragma unroll
    for (int m = 16; m >= CH; m >>= 1) lsum += __shfl_xor_sync(0xffffffffu, lsum, m);
    if (wl < CH) warp_tot[warp][wl] = lsum;
  }
  __syncthreads();
  if (t < CH) {
    // The corner chain, per channel: this tile row's sum left of the tile, then the corner above.
    double left = 0;
#pragma unroll
    for (int q = kRowT / 32; q < kThreads / 32; ++q) left += warp_tot[q][t];
    corner_s[t] = chain_step<double, kWin>(w.corner + size_t(j) * CH + t, size_t(g.nTx) * CH, i, left,
                                           w.window, w.epoch);
  }
  {
    // This group's contribution to the SAT row below it (as group_start).
    double lsum[CH] = {}, run[CH] = {}, tot[CH];
#pragma unroll
    for (int r = 0; r < KR; ++r)
#pragma unroll
      for (int c = 0; c < CH; ++c) lsum[c] += rows[(grp * KR + r) * CH + c];  // 0 below the image
#pragma unroll
    for (int k = 0; k < V; ++k) cs[k] = run[k % CH] += cs[k];
#pragma unroll
    for (int c = 0; c < CH; ++c) tot[c] = run[c];
    row_exclusive<CH, double, L>(tot);
#pragma unroll
    for (int k = 0; k < V; ++k) cs[k] += tot[k % CH] + lsum[k % CH];
#pragma unroll
    for (int k = 0; k < V; k += 2)
      *reinterpret_cast<double2*>(&start[grp][lane * V + k]) = make_double2(cs[k], cs[k + 1]);
  }
  __syncthreads();
  if (t < TW) {
    const int c = t % CH;
    double top = mine + corner_s[c];  // S(x, row above the tile)
    for (int q = 0; q < warp; ++q) top += warp_tot[q][c];
#pragma unroll
    for (int q = 0; q < G; ++q) {
      const double s = start[q][t];
      start[q][t] = top;
      top += s;
    }
  }
  __syncthreads();
  double acc[V];
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] = start[grp][lane * V + k];
#pragma unroll
  for (int r = 0; r < KR; ++r) {
    const int y = y0 + r;
    const float4 q = *reinterpret_cast<const float4*>(mine_rows + r * TW);
    const float f[V] = {q.x, q.y, q.z, q.w};
    double p[V], run[CH] = {}, tot[CH];
#pragma unroll
    for (int k = 0; k < V; ++k) p[k] = run[k % CH] += double(f[k]);
#pragma unroll
    for (int c = 0; c < CH; ++c) tot[c] = run[c];
    row_exclusive<CH, double, L>(tot);  // every lane, before any leaves: rows below the image included
    if (y >= g.H) continue;
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] += p[k] + tot[k % CH] + rows[(grp * KR + r) * CH + k % CH];
    if (x0 >= g.E) continue;
    float* o = out + size_t(y) * g.E + x0;
    if (VEC) {
      __stcs(reinterpret_cast<float4*>(o),
             make_float4(float(acc[0]), float(acc[1]), float(acc[2]), float(acc[3])));
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (x0 + k < g.E) o[k] = float(acc[k]);
    }
  }
}

}  // namespace f32

// SATLAB_SAT_LB2D_WINDOW (1..4): words of a chain read at once, for tuning.
int window() {
  static const int win = [] {
    const char* e = std::getenv("SATLAB_SAT_LB2D_WINDOW");
    return std::clamp(e ? std::atoi(e) : 4, 1, kWin);
  }();
  return win;
}

// SATLAB_SAT_LB2D_BLOCKS=3: 3 blocks per SM (80 registers) instead of 4, for tuning.
bool four_blocks() {
  static const bool f = [] {
    const char* e = std::getenv("SATLAB_SAT_LB2D_BLOCKS");
    return !(e && std::atoi(e) == 3);
  }();
  return f;
}

template <int CH>
void launch_u8(const SatArgs& a, const Geometry& g, const Words& w, bool vec) {
  const auto* in = static_cast<const uint8_t*>(a.in);
  auto* out = static_cast<uint32_t*>(a.out);
  const bool four = four_blocks() && CH == 1;  // 4 channels: 3 blocks (64 registers would spill)
  const auto k = vec ? (four ? lookback_2d<CH, true, 4> : lookback_2d<CH, true, 3>)
                     : (four ? lookback_2d<CH, false, 4> : lookback_2d<CH, false, 3>);
  k<<<unsigned(size_t(g.nTx) * g.nTy), kThreads, 0, cudaStream_t(a.stream)>>>(in, out, g, w, true);
}

template <auto k>
void launch_f32_kernel(const Geometry& g, const float* in, float* out, const Words& w, const SatArgs& a) {
  static const cudaError_t attr = [] {  // once per kernel: the tile is dynamic shared memory
    cudaError_t e =
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(f32::kTileBytes));
    if (e == cudaSuccess)
      e = cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared);
    return e;
  }();
  cuda_check(attr, "cudaFuncSetAttribute (shared memory) of sat_lookback_2d's float tiles", a);
  k<<<unsigned(size_t(g.nTx) * g.nTy), kThreads, f32::kTileBytes, cudaStream_t(a.stream)>>>(in, out, g, w);
}

template <int CH>
void launch_f32(const SatArgs& a, const Geometry& g, const Words& w, bool vec) {
  const auto* in = static_cast<const float*>(a.in);
  auto* out = static_cast<float*>(a.out);
  if (vec)
    launch_f32_kernel<f32::lookback_2d<CH, true>>(g, in, out, w, a);
  else
    launch_f32_kernel<f32::lookback_2d<CH, false>>(g, in, out, w, a);
}

}  // namespace

void sat_lookback_2d(const SatArgs& a) {
  check_args(a, a.dtype != DType::F32);
  const bool f = a.dtype == DType::F32;
  const int CH = a.channels;  // check_args: U8 1, RGBA8 4, F32 1..4
  if (CH == 3) throw Error("sat_lookback_2d takes float with 1, 2 or 4 channels, not 3");
  Geometry g{a.width * CH, a.height, 0, 0};
  g.nTx = int(ceil_div(size_t(g.E), f ? f32::kTileW : kTileE));
  g.nTy = int(ceil_div(size_t(g.H), kTileH));
  const size_t nCol = size_t(g.nTy) * g.E, nRow = size_t(g.nTx) * g.H * CH,
               nCorner = size_t(g.nTx) * g.nTy * CH;
  phase(a, "sat look-back 2d: tiles");
  const LookbackWords lw = lookback_words(nCol + nRow + nCorner, a);
  const Words w{lw.words, lw.words + nCol, lw.words + nCol + nRow, window(), lw.epoch};
  const bool vec = g.E % (f ? 4 : 16) == 0 && reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
  if (f) {
    if (CH == 1)
      launch_f32<1>(a, g, w, vec);
    else if (CH == 2)
      launch_f32<2>(a, g, w, vec);
    else
      launch_f32<4>(a, g, w, vec);
  } else if (CH == 1) {
    launch_u8<1>(a, g, w, vec);
  } else {
    launch_u8<4>(a, g, w, vec);
  }
  launch_check("sat_lookback_2d", a);
}

Variant sat_lookback_2d_variant() {
  return sat_builder_variant(
      "sat_lookback_2d", "tiled 2D, single pass (look-back up and left)",
      "decoupled look-back (Merrill & Garland 2016) over the tiles of Nehab et al. 2011",
      {DType::U8, DType::RGBA8, DType::F32}, sat_lookback_2d);
}

}  // namespace satlab::gpu
