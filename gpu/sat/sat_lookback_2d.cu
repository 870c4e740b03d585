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
//     aggregate, then that plus its own corner, which is the corner of the tile below (8-bit tiles;
//     the float tiles' corner chains take their aggregates from the tile column to the left: below).
// Tiles are numbered by blockIdx.x in row-major order and blocks start in that order (as CUB's decoupled
// look-back scans also assume), so every tile a look-back waits for has started, and a tile publishes its
// aggregates before it waits for anything: no deadlock. Then the tile's SAT is rebuilt from the registers as
// in sat_tiled's rebuild. Bytes: 1 + 4 per element; plus the words, 8 B per column per tile row and per row
// per tile column (1/8 B per element), read back through L2; they carry the launch's epoch instead of
// being zeroed before it (gpu/sat/sat_lookback.cuh).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/depth/guided_stack.cuh"
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
  unsigned long long* corner;  // 8-bit tiles [nTy][nTx]: tile row i left of tile column j (A), then with all
                               // above (P); float tiles [nTx][row warp][nTy]: below (f32::lookback_2d)
  int window;                  // words read at once
  unsigned epoch;              // this launch's (sat_lookback.cuh)
  unsigned long long* trace;   // SATLAB_SAT_TRACE builds: kTraceSlots timestamps per float tile, or null
};

// A timeline of the float tiles for tuning (docs/performance.md, tuning log 30-33): built with
// -DSATLAB_SAT_TRACE=ON, `SATLAB_SAT_TRACE=FILE satlab bench sat ...` writes each float launch's
// %globaltimer stamps (thread T's at event k; slot 15 the SM), read by tools/sat_trace.py. A stamp right
// after a barrier can be read before it (the timer read is not ordered with the barrier), so events
// follow work, not barriers.
#ifdef SATLAB_SAT_TRACE
constexpr int kTraceSlots = 16;
#define SAT_TRACE(T, k)                                                  \
  if (w.trace && threadIdx.x == (T)) {                                   \
    unsigned long long ns_;                                              \
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns_));              \
    w.trace[size_t(blockIdx.x) * kTraceSlots + (k)] = ns_;               \
    if ((k) == 0) {                                                      \
      unsigned sm_;                                                      \
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_));                   \
      w.trace[size_t(blockIdx.x) * kTraceSlots + kTraceSlots - 1] = sm_; \
    }                                                                    \
  }
#else
#define SAT_TRACE(T, k)
#endif

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

// Float input (1, 2 or 4 interleaved channels): the same scheme on tiles of 32 KB held in shared memory
// (5 blocks per SM), 128 elements (512 bytes) wide and 64 rows tall, with float tile-local tables and
// float64 carries. A thread owns 4 floats of 8 consecutive rows, loaded with cp.async straight into the
// tile (all 8 in flight, none held in registers); 32 threads span a row. An output is
//   S(x, y) = A(x) + (Local(x, y) + B(y)),  A(x) = corner + sum over the tile's columns up to x of the
//   column's sum above the tile,  B(y) = sum over the tile's rows down to y of the row's sum left of it,
// where A and B are summed in float64 and rounded to float once, and Local, the tile's own SAT, is float:
// every float sum is of non-negative partial sums of at most 8192 elements, at most 25 roundings deep, 27
// with the two final adds (sat_host.hpp, kFloatSatRelBound). The look-back words carry float64 (36
// mantissa bits kept). Per element the adds of Local and the output are float (4: the row prefix's in
// the first pass, stored in place, 3 in the rebuild), where float64 sums cost 2 conversions and 3 float64
// adds more. The corner comes from a chain down the tile column whose aggregates come from
// the tile column to the left (below), so that no corner waits on the corners above it; every word a
// float tile waits for comes from a tile with a smaller number (left, above, above-left): no deadlock. Tiles
// are numbered row by row (down the tile columns, or row by row inside strips of tile columns, measured
// slower: tuning log 30); 128-wide tiles halve the row chains in flight at once against 64 x 128 ones
// (tuning log 32). A row thread's CH chains (one per channel) are looked back together
// (look_back_multi: CH x 1 words in flight per window at 4 channels, 2 x 2 at 2), not one after the
// other: 4-channel tiles at 3840x2160 0.21 -> 0.15 ms (docs/performance.md, guided filter second pass).
// The input is the image, or a stack group of the guided filter formed as the tile loads
// (sat_lookback_2d_stack: the same values bit for bit, so the same bound).
namespace f32 {

constexpr int V = 4;   // floats per thread and row
constexpr int KR = 8;  // rows per thread
// Tiles of 32 KB: kTileW elements wide, kLanesF threads across a row, kGroupsF groups of KR rows down.
constexpr int kTileW = 128, kLanesF = kTileW / V, kGroupsF = kThreads / kLanesF, kTileHF = kGroupsF * KR;
constexpr int kRowWarps = kTileHF / 32;  // a thread per tile row: these warps
constexpr int kBlocks = 5;               // per SM: 48 registers, 5 x ~38 KB of shared memory
constexpr size_t kTileBytes = size_t(kThreads) * KR * V * sizeof(float);
constexpr unsigned kFull = 0xffffffffu;
constexpr int kWinF = 8;  // most look-back words read at once (the 8-bit tiles' kWin: registers)

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

__device__ __forceinline__ void unpack4(const float4& q, float (&f)[V]) {
  f[0] = q.x, f[1] = q.y, f[2] = q.z, f[3] = q.w;
}

// Per channel, the sum of a tile row's elements left of this thread's (exclusive scan over the L lanes of
// the row of this thread's per-channel sums `part`), and (lane L - 1's) the row's total. Sums of non-negative
// terms only: shifted by one lane, then an inclusive scan, so no difference ever rounds.
template <int CH, int L>
__device__ __forceinline__ void row_scan(const float (&part)[CH], float (&left)[CH], float (&total)[CH]) {
  const int lane = threadIdx.x % L;
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    float s = __shfl_up_sync(kFull, part[c], 1, L);
    if (lane == 0) s = 0.f;
#pragma unroll
    for (int d = 1; d < L; d <<= 1) {
      const float n = __shfl_up_sync(kFull, s, d, L);
      if (lane >= d) s += n;
    }
    left[c] = s;
    total[c] = s + part[c];  // the row's total in lane L - 1
  }
}

// Inclusive prefix along the warp per channel (lanes CH apart share a channel), float64.
template <int CH>
__device__ __forceinline__ double warp_inclusive(double v) {
  const int wl = threadIdx.x & 31;
#pragma unroll
  for (int d = CH; d < 32; d <<= 1) {
    const double n = __shfl_up_sync(kFull, v, d);
    if (wl >= d) v += n;
  }
  return v;
}

// The tile's input: the image (SatArgs::in), or a stack group of the guided filter formed from the guide
// and p as the tile loads (guided_detail::StackSource: the stack is never written to memory).
struct ImageSource {};

// Stack group s.group of the pixels of this thread's KR rows from element x0 (CH 4: one pixel; CH 1,
// group 3: four) to the tile, zeros below the image and past its right edge. The loads of SB rows are
// all issued before any value is formed and stored (a store to the tile may alias the images for the
// compiler, which would otherwise wait for each row's loads in turn).
template <int CH, int SB>
__device__ __forceinline__ void load_stack(const guided_detail::StackSource& s, const Geometry& g, int x0,
                                           int y0, float* rows) {
  using namespace guided_detail;
  static_assert(KR % SB == 0, "row batches");
  const Offsets o = offsets_of(s.acc, s.count);
  const int w = g.E / CH;  // pixels per row
#pragma unroll
  for (int r0 = 0; r0 < KR; r0 += SB) {
    float q[SB][4];  // CH 4: the guide's 3 channels (or 1) and p; CH 1: 4 pixels' guide channel 2
#pragma unroll
    for (int r = 0; r < SB; ++r) {
      const int y = y0 + r0 + r;
      const bool in = y < g.H && x0 < g.E;
      if constexpr (CH == 4) {
        const size_t i = size_t(y) * size_t(w) + size_t(x0 / 4);
        const float* gp = s.guide + i * size_t(s.gc);
        q[r][0] = in ? __ldcs(gp) : 0.f;
        q[r][1] = in && s.gc > 1 ? __ldcs(gp + 1) : 0.f;
        q[r][2] = in && s.gc > 1 ? __ldcs(gp + 2) : 0.f;
        q[r][3] = in ? __ldcs(s.p + i) : 0.f;
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k)
          q[r][k] = in && x0 + k < g.E
                        ? __ldcs(s.guide + (size_t(y) * size_t(w) + size_t(x0 + k)) * size_t(s.gc) + 2)
                        : 0.f;
      }
    }
#pragma unroll
    for (int r = 0; r < SB; ++r) {
      const int y = y0 + r0 + r;
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (y < g.H && x0 < g.E) {
        if constexpr (CH == 4) {
          float I[3];
          const float pc = __fsub_rn(q[r][3], o.p);
          if (s.nc == 1) {
            centred_guide<1>(q[r], s.gc == 1 ? 1 : 3, 0, o, I);
            v = stack4<1>(I, pc, 0);
          } else {
            centred_guide<3>(q[r], 3, 0, o, I);
            v = stack4<3>(I, pc, s.group);
          }
        } else {
          float f[V];
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const float i2 = __fsub_rn(q[r][k], o.g[2]);
            f[k] = x0 + k < g.E ? __fmul_rn(i2, i2) : 0.f;
          }
          v = make_float4(f[0], f[1], f[2], f[3]);
        }
      }
      *reinterpret_cast<float4*>(rows + r0 * kTileW + r * kTileW) = v;
    }
  }
}

// As load_stack for 4-channel groups of a 3-channel guide whose rows are 16-byte multiples (s.raw): a
// tile row is 32 pixels, and their guide (96 floats) and p (32 floats) fill the row's 512 bytes exactly,
// so each thread copies one 16-byte chunk of each of its KR rows there with cp.async (all in flight,
// none in registers, as the image tiles' loads), then its warp (a group: 32 lanes, a row's pixels) forms
// the stack values in place, half of the rows at a time, every lane's reads of a row before any write.
__device__ __forceinline__ void load_stack_raw(const guided_detail::StackSource& s, const Geometry& g, int x0,
                                               int y0, float* rows) {
  using namespace guided_detail;
  const int lane = threadIdx.x % kLanesF, w = g.E / 4, px0 = x0 / 4 - lane;  // the tile row's first pixel
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(rows - lane * V));
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
#pragma unroll
  for (int r = 0; r < KR; ++r) {
    const int y = y0 + r;
    const float* src;
    bool inside;
    if (lane < 24) {  // guide floats 4 lane .. 4 lane + 3 of the row's 96
      inside = y < g.H && px0 * 3 + lane * 4 < w * 3;
      src = s.guide + (size_t(y) * size_t(w) + size_t(px0)) * 3 + size_t(lane) * 4;
    } else {  // p of pixels 4 (lane - 24) ..
      inside = y < g.H && px0 + (lane - 24) * 4 < w;
      src = s.p + size_t(y) * size_t(w) + size_t(px0) + size_t(lane - 24) * 4;
    }
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(
                     dst + unsigned(r * kTileW * 4 + lane * 16)),
                 "l"(inside ? src : s.p), "r"(inside ? 16 : 0), "l"(policy)
                 : "memory");
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncwarp();  // every lane's copies, visible to the warp
  const Offsets o = offsets_of(s.acc, s.count);
  const float* row0 = rows - lane * V;  // the group's first row
  const bool px_in = px0 + lane < w;
#pragma unroll
  for (int r0 = 0; r0 < KR; r0 += KR / 2) {
    float q[KR / 2][4];
#pragma unroll
    for (int r = 0; r < KR / 2; ++r) {
      const float* row = row0 + (r0 + r) * kTileW;
      q[r][0] = row[lane * 3], q[r][1] = row[lane * 3 + 1], q[r][2] = row[lane * 3 + 2];
      q[r][3] = row[96 + lane];
    }
    __syncwarp();  // the rows read by every lane before any lane writes them
#pragma unroll
    for (int r = 0; r < KR / 2; ++r) {
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (px_in && y0 + r0 + r < g.H) {
        float I[3];
        const float pc = __fsub_rn(q[r][3], o.p);
        if (s.nc == 1) {
          centred_guide<1>(q[r], 3, 0, o, I);
          v = stack4<1>(I, pc, 0);
        } else {
          centred_guide<3>(q[r], 3, 0, o, I);
          v = stack4<3>(I, pc, s.group);
          if (s.side)  // group 3's values (I22, as load_stack forms them), coalesced: a pixel per lane
            s.side[size_t(y0 + r0 + r) * size_t(w) + size_t(px0 + lane)] = __fmul_rn(I[2], I[2]);
        }
      }
      *reinterpret_cast<float4*>(rows + (r0 + r) * kTileW) = v;
    }
  }
}

// MW > 0: the row threads' CH chains looked back together, MW words per chain at once; 0: one after the
// other (chain_step). SB: rows of a fused stack group loaded at once through registers (load_stack).
template <int CH, bool VEC, int MW, class Src, int SB = 4>
__global__ void __launch_bounds__(kThreads, kBlocks)
    lookback_2d(const float* __restrict__ in, float* __restrict__ out, Geometry g, Words w, Src src) {
  constexpr int TW = kTileW, L = kLanesF, G = kGroupsF, kTileH = kTileHF;
  constexpr int kRowT = kThreads - kTileH;  // threads from here: a tile row each
  constexpr int kRW = kRowWarps;            // corner chains per tile column, one per row warp
  constexpr int kCornerT = TW;              // threads TW .. TW + kRW * CH - 1: the corner's shares
  static_assert(TW % 32 == 0 && TW + kRW * CH <= kRowT && V % CH == 0 && KR % 4 == 0, "thread roles");
  extern __shared__ __align__(16) float tile[];      // [kTileH][TW]: the input
  __shared__ __align__(16) float part[G][TW];        // group column sums, then Local above each group
  __shared__ __align__(16) float rowv[kTileH * CH];  // the tile's row totals, then B(y)
  __shared__ __align__(16) float a_s[TW];            // A(x)
  __shared__ double wtot[kThreads / 32][CH];         // warp totals of the column and row prefixes
  __shared__ double corner_s[kRW][CH];               // the corner's shares, per row warp
  __shared__ double wown[kRW][CH];                   // row warps: their rows' own sums
  const int lane = threadIdx.x % L, grp = threadIdx.x / L, t = threadIdx.x, warp = t >> 5;
  const int i = blockIdx.x / g.nTx, j = blockIdx.x % g.nTx;
  const int x0 = j * TW + lane * V, y0 = i * kTileH + grp * KR;
  float* const mine_rows = tile + grp * KR * TW + lane * V;
  SAT_TRACE(0, 0)  // start
  if constexpr (!std::is_same_v<Src, ImageSource>) {
    // (A runtime branch: the raw copies in a kernel of their own spilled more and were slower,
    // docs/performance.md, guided filter third pass.)
    if (CH == 4 && src.raw)
      load_stack_raw(src, g, x0, y0, mine_rows);
    else
      load_stack<CH, SB>(src, g, x0, y0, mine_rows);
  } else if constexpr (VEC) {
    // The thread's KR rows straight to the tile, all in flight at once and none held in registers
    // (cp.async, L2 only, marked evict-first: the input's only read); zeros below the image and past its
    // right edge.
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(mine_rows));
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
    const float* row0 = in + size_t(y0) * size_t(g.E) + size_t(x0);
#pragma unroll
    for (int r = 0; r < KR; ++r) {
      const bool inside = y0 + r < g.H && x0 < g.E;
      const float* src = inside ? row0 + size_t(r) * size_t(g.E) : in;
      asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(
                       dst + unsigned(r * TW * 4)),
                   "l"(src), "r"(inside ? 16 : 0), "l"(policy)
                   : "memory");
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");  // this thread's copies, visible to it
    SAT_TRACE(0, 1)                                     // thread 0's loads in
  } else {
#pragma unroll
    for (int r = 0; r < KR; ++r) {
      float f[V];
      load4_unaligned(in, g, x0, y0 + r, f);
      *reinterpret_cast<float4*>(mine_rows + r * TW) = make_float4(f[0], f[1], f[2], f[3]);
    }
  }

  // Per row: the row's total (lane L - 1 to rowv), and each element's row sum inside the tile up to it,
  // stored in place for the rebuild (the same adds in the same order as the rebuild's scan had: the SAT is
  // bit for bit what it was; held in registers instead, they made the kernel spill, tuning log 32). Per
  // column: the sum over this thread's rows (two halves, 4 adds deep) to part. One row scan per row, not
  // two: a 4-channel row is 4 x 6 shuffles (4-channel builds 0.172 -> 0.163 ms at 3840x2160, the SAT of
  // the guided filter's a and b 0.154 -> 0.143; docs/performance.md, guided filter third pass).
  {
    float cs[2][V];  // (first terms assigned: adding to 0.f is an instruction)
#pragma unroll
    for (int r = 0; r < KR; ++r) {
      float f[V], p[CH], lft[CH], tot[CH];
      unpack4(*reinterpret_cast<const float4*>(mine_rows + r * TW), f);
#pragma unroll
      for (int k = 0; k < V; ++k) {
        float& c = cs[r / (KR / 2)][k];
        c = r % (KR / 2) == 0 ? f[k] : c + f[k];
        p[k % CH] = k < CH ? f[k] : p[k % CH] + f[k];
      }
      row_scan<CH, L>(p, lft, tot);
      if (lane == L - 1)
#pragma unroll
        for (int c = 0; c < CH; ++c) rowv[(grp * KR + r) * CH + c] = tot[c];
      // Each element's row sum inside the tile up to it, in place of the element: the rebuild reads it
      // and scans no row (only this thread reads these 4 floats, before and after).
#pragma unroll
      for (int k = 0; k < V; ++k) f[k] = lft[k % CH] += f[k];
      *reinterpret_cast<float4*>(mine_rows + r * TW) = make_float4(f[0], f[1], f[2], f[3]);
    }
    *reinterpret_cast<float4*>(&part[grp][lane * V]) =
        make_float4(cs[0][0] + cs[1][0], cs[0][1] + cs[1][1], cs[0][2] + cs[1][2], cs[0][3] + cs[1][3]);
  }
  __syncthreads();
  SAT_TRACE(0, 2)  // past the first barrier

  // Threads below TW: column x = j * TW + t: its sum above each group inside the tile (the exclusive scan
  // of the groups' column sums, float64, rounded once) in place; its sum over the tile is its aggregate
  // in the column chain, which gives the column's sum above the tile; then its prefix along the tile.
  // Threads kCornerT..: the corner's shares, per row warp and channel, from the corner chains of this
  // tile column.
  // Threads from kRowT: row y = i * kTileH + t - kRowT, per channel: its total is its aggregate in the row
  // chain, which gives the row's sum left of the tile; then its prefix down the tile.
  //
  // Corner chains: kRW per tile column j (one per row warp r) and channel, running down it, element i
  // carrying
  //   aggregate: the sum of the inclusive row sums of row warp r of tile (i, j - 1) (its 32 rows' sums
  //   from the image's left edge to the end of tile column j - 1), published by that warp as soon as its
  //   row look-backs are done, without waiting for the tile's other warps;
  //   inclusive prefix: published by tile (i, j) once it has element i's exclusive prefix.
  // corner(i, j) is the sum over r of element i's exclusive prefixes. Every aggregate comes from the tile
  // column to the left, so no chain waits for the corners of its own column to pass their tiles' barriers,
  // and no warp waits for another to publish.
  double pre[CH];  // column threads: pre[0], the column prefix; row threads: per channel, the row prefix
  if (t < TW) {
    const int x = j * TW + t;
    double s = 0;
#pragma unroll
    for (int q = 0; q < G; ++q) {
      const float v = part[q][t];
      part[q][t] = float(s);
      s += double(v);
    }
    double above = 0;
    if (x < g.E) above = chain_step<double, kWinF>(w.col + size_t(x), size_t(g.E), i, s, w.window, w.epoch);
    SAT_TRACE(0, 3)  // column look-back done
    pre[0] = warp_inclusive<CH>(above);
    if ((t & 31) >= 32 - CH) wtot[warp][t % CH] = pre[0];
  } else if (t < kCornerT + kRW * CH) {
    const int r = (t - kCornerT) / CH, c = (t - kCornerT) % CH;
    double corner = 0;
    if (j > 0) {
      unsigned long long* chain = w.corner + (size_t(j) * kRW + r) * g.nTy * CH + c;
      corner = look_back<double, kWinF>(chain, CH, i, w.window, w.window, w.epoch);
      // Element i's inclusive prefix, where its aggregate is there already (no wait: readers may also add
      // the aggregate and go on).
      unsigned long long* own = chain + size_t(i) * CH;
      const unsigned long long v = *reinterpret_cast<const volatile unsigned long long*>(own);
      if (flag_of<double>(v, w.epoch) == kFlagA)
        publish(own, pack(corner + value_of<double>(v), kFlagP, w.epoch));
    }
    corner_s[r][c] = corner;
    SAT_TRACE(kCornerT, 4)  // corner done
  } else if (t >= kRowT && MW > 0 && CH > 1) {
    // The row's CH chains looked back together (look_back_multi: one set of round trips, not CH in a
    // row); the rows' own sums read again from rowv after it (not held in registers through it).
    const int u = t - kRowT, y = i * kTileH + u, rw = warp - kRowT / 32;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      double sum = double(rowv[u * CH + c]);
#pragma unroll
      for (int m = 16; m > 0; m >>= 1) sum += __shfl_xor_sync(kFull, sum, m);
      if ((t & 31) == 31) wown[rw][c] = sum;
    }
    double lft[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) lft[c] = 0;
    if (y < g.H) {
      unsigned long long* chain = w.row + size_t(y) * CH;
      const size_t stride = size_t(g.H) * CH;
      if (j > 0) {
#pragma unroll
        for (int c = 0; c < CH; ++c)
          publish(chain + size_t(j) * stride + c, pack(double(rowv[u * CH + c]), kFlagA, w.epoch));
        look_back_multi<double, CH, (MW > 0 ? MW : 1)>(chain, stride, j, min(w.window, MW), w.epoch, lft);
      }
#pragma unroll
      for (int c = 0; c < CH; ++c)
        publish(chain + size_t(j) * stride + c, pack(lft[c] + double(rowv[u * CH + c]), kFlagP, w.epoch));
    }
    SAT_TRACE(kRowT, 5)  // first row warp's look-backs done
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      pre[c] = warp_inclusive<1>(lft[c]);
      if ((t & 31) == 31) {
        wtot[warp][c] = pre[c];
        if (j + 1 < g.nTx)  // this warp's aggregate in the corner chain of tile column j + 1
          publish(w.corner + ((size_t(j + 1) * kRW + rw) * g.nTy + i) * CH + c,
                  pack(pre[c] + wown[rw][c], kFlagA, w.epoch));
      }
    }
  } else if (t >= kRowT) {
    const int u = t - kRowT, y = i * kTileH + u;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const double own = double(rowv[u * CH + c]);
      double sum = own;  // the rows' own sums over the warp (before the look-back holds its registers)
#pragma unroll
      for (int m = 16; m > 0; m >>= 1) sum += __shfl_xor_sync(kFull, sum, m);
      if ((t & 31) == 31) wown[warp - kRowT / 32][c] = sum;  // read back by this thread: no registers held
      double lft = 0;
      if (y < g.H)
        lft = chain_step<double, kWinF>(w.row + size_t(y) * CH + c, size_t(g.H) * CH, j, own, w.window,
                                        w.epoch);
      SAT_TRACE(kRowT, 5)  // first row warp's look-backs done
      pre[c] = warp_inclusive<1>(lft);
      if ((t & 31) == 31) {
        wtot[warp][c] = pre[c];
        if (j + 1 < g.nTx)  // this warp's aggregate in the corner chain of tile column j + 1
          publish(w.corner + ((size_t(j + 1) * kRW + (warp - kRowT / 32)) * g.nTy + i) * CH + c,
                  pack(pre[c] + wown[warp - kRowT / 32][c], kFlagA, w.epoch));
      }
    }
  }
  __syncthreads();
  if (t < TW) {
    const int c = t % CH;
    double a = pre[0];
#pragma unroll
    for (int r = 0; r < kRW; ++r) a += corner_s[r][c];
    for (int q = 0; q < warp; ++q) a += wtot[q][c];
    a_s[t] = float(a);
  } else if (t >= kRowT) {
    const int u = t - kRowT;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      double b = pre[c];
      for (int q = kRowT / 32; q < warp; ++q) b += wtot[q][c];
      rowv[u * CH + c] = float(b);
    }
  }
  __syncthreads();
  SAT_TRACE(0, 8)  // past the third barrier

  // Local above this group: its column sums above the group (part) summed along the row, as the rows'.
  float acc[V], a[V];
  {
    float p[CH], lft[CH], tot[CH];
    unpack4(*reinterpret_cast<const float4*>(&part[grp][lane * V]), acc);
#pragma unroll
    for (int k = 0; k < V; ++k) p[k % CH] = k < CH ? acc[k] : p[k % CH] + acc[k];
    row_scan<CH, L>(p, lft, tot);
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] = lft[k % CH] += acc[k];
  }
  unpack4(*reinterpret_cast<const float4*>(&a_s[lane * V]), a);
#pragma unroll
  for (int r = 0; r < KR; ++r) {
    const int y = y0 + r;
    if (y >= g.H) continue;
    float f[V];  // the row's sums inside the tile up to each element (the first pass's, in place)
    unpack4(*reinterpret_cast<const float4*>(mine_rows + r * TW), f);
    float o[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      acc[k] += f[k];
      o[k] = a[k] + (acc[k] + rowv[(grp * KR + r) * CH + k % CH]);
    }
    if (x0 >= g.E) continue;
    float* p = out + size_t(y) * g.E + x0;
    if (VEC) {
      __stcs(reinterpret_cast<float4*>(p), make_float4(o[0], o[1], o[2], o[3]));
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (x0 + k < g.E) p[k] = o[k];
    }
  }
  SAT_TRACE(0, 9)  // stores issued
}

}  // namespace f32

// SATLAB_SAT_LB2D_WINDOW: words of a chain read at once, for tuning: 1..kWin for the 8-bit tiles, 1..kWinF
// for the float ones (default: the most).
int window(bool f) {
  static const int env = [] {
    const char* e = std::getenv("SATLAB_SAT_LB2D_WINDOW");
    return e ? std::atoi(e) : 0;
  }();
  const int most = f ? f32::kWinF : kWin;
  return env > 0 ? std::min(env, most) : most;
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

template <auto k, class Src>
void launch_f32_kernel(const Geometry& g, const float* in, float* out, const Words& w, const SatArgs& a,
                       const Src& src) {
  static const cudaError_t attr = [] {  // once per kernel: the tile is dynamic shared memory
    cudaError_t e =
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(f32::kTileBytes));
    if (e == cudaSuccess)
      e = cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared);
    return e;
  }();
  cuda_check(attr, "cudaFuncSetAttribute (shared memory) of sat_lookback_2d's float tiles", a);
  k<<<unsigned(size_t(g.nTx) * g.nTy), kThreads, f32::kTileBytes, cudaStream_t(a.stream)>>>(in, out, g, w, src);
}

template <int CH, int MW, class Src>
void launch_f32_v(const SatArgs& a, const Geometry& g, const Words& w, bool vec, const Src& src) {
  const auto* in = static_cast<const float*>(a.in);
  auto* out = static_cast<float*>(a.out);
  if (vec)
    launch_f32_kernel<f32::lookback_2d<CH, true, MW, Src>>(g, in, out, w, a, src);
  else
    launch_f32_kernel<f32::lookback_2d<CH, false, MW, Src>>(g, in, out, w, a, src);
}

template <int CH, class Src>
void launch_f32(const SatArgs& a, const Geometry& g, const Words& w, bool vec, const Src& src) {
  // Several channels: their row chains looked back together, 4 words in all per window (1 per chain
  // at 4 channels: 48 registers, no spill; 2 words per chain spilled and measured slower, as did 4 blocks
  // per SM: docs/performance.md, guided filter second pass).
  launch_f32_v<CH, CH == 1 ? 0 : 4 / CH>(a, g, w, vec, src);
}

template <class Src>
void build(const SatArgs& a, const Src& src) {
  check_args(a, a.dtype != DType::F32);
  const bool f = a.dtype == DType::F32;
  const int CH = a.channels;  // check_args: U8 1, RGBA8 4, F32 1..4
  if (CH == 3) throw Error("sat_lookback_2d takes float with 1, 2 or 4 channels, not 3");
  Geometry g{a.width * CH, a.height, 0, 0};
  g.nTx = int(ceil_div(size_t(g.E), f ? f32::kTileW : kTileE));
  g.nTy = int(ceil_div(size_t(g.H), f ? f32::kTileHF : kTileH));
  const size_t nCol = size_t(g.nTy) * g.E, nRow = size_t(g.nTx) * g.H * CH,
               nCorner = size_t(g.nTx) * g.nTy * CH * size_t(f ? f32::kRowWarps : 1);
  phase(a, "sat look-back 2d: tiles");
  const LookbackWords lw = lookback_words(nCol + nRow + nCorner, a);
  unsigned long long* trace = nullptr;
#ifdef SATLAB_SAT_TRACE
  static unsigned long long* trace_buf = nullptr;  // kept to exit: a tuning build
  static size_t trace_cap = 0;
  const char* trace_file = std::getenv("SATLAB_SAT_TRACE");
  const size_t trace_n = size_t(g.nTx) * g.nTy * kTraceSlots;
  if (trace_file && f) {
    if (trace_cap < trace_n) {
      if (trace_buf) cuda_check(cudaFree(trace_buf), "cudaFree (sat trace)", a);
      trace_buf = nullptr;
      cuda_check(cudaMalloc(&trace_buf, trace_n * 8), "cudaMalloc (sat trace)", a);
      trace_cap = trace_n;
    }
    cuda_check(cudaMemsetAsync(trace_buf, 0, trace_n * 8, cudaStream_t(a.stream)), "cudaMemsetAsync", a);
    trace = trace_buf;
  }
#endif
  const Words w{lw.words, lw.words + nCol, lw.words + nCol + nRow, window(f), lw.epoch, trace};
  const bool vec = g.E % (f ? 4 : 16) == 0 && reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
  if constexpr (std::is_same_v<Src, f32::ImageSource>) {
    if (f) {
      if (CH == 1)
        launch_f32<1>(a, g, w, vec, src);
      else if (CH == 2)
        launch_f32<2>(a, g, w, vec, src);
      else
        launch_f32<4>(a, g, w, vec, src);
    } else if (CH == 1) {
      launch_u8<1>(a, g, w, vec);
    } else {
      launch_u8<4>(a, g, w, vec);
    }
  } else {  // a guided stack group: 4 channels, or group 3's one
    if (!f || (CH != 4 && !(CH == 1 && src.group == 3 && src.nc == 3)))
      throw Error("sat_lookback_2d: a guided stack group is F32 with 4 channels (group 3: 1)");
    if (src.raw && !(CH == 4 && src.gc == 3 && a.width % 4 == 0 && reinterpret_cast<uintptr_t>(src.guide) % 16 == 0 &&
                     reinterpret_cast<uintptr_t>(src.p) % 16 == 0))
      throw Error("sat_lookback_2d: a raw-loaded stack group needs a 3-channel guide, rows of 16-byte multiples");
    if (src.side && !(src.raw && src.group == 0 && src.nc == 3))
      throw Error("sat_lookback_2d: group 3's side output comes from a raw-loaded group 0 (colour)");
    if (CH == 1)
      launch_f32<1>(a, g, w, vec, src);
    else
      launch_f32<4>(a, g, w, vec, src);
  }
  launch_check("sat_lookback_2d", a);
#ifdef SATLAB_SAT_TRACE
  if (trace) {  // this launch's timeline replaces the last one's: header nTx, nTy, E, H (int32), stamps
    std::vector<unsigned long long> h(trace_n);
    cuda_check(cudaMemcpyAsync(h.data(), trace, trace_n * 8, cudaMemcpyDeviceToHost, cudaStream_t(a.stream)),
               "cudaMemcpyAsync (sat trace)", a);
    cuda_check(cudaStreamSynchronize(cudaStream_t(a.stream)), "cudaStreamSynchronize (sat trace)", a);
    if (FILE* fp = std::fopen(trace_file, "wb")) {
      const int hdr[4] = {g.nTx, g.nTy, g.E, g.H};
      const bool ok =
          std::fwrite(hdr, sizeof hdr, 1, fp) == 1 && std::fwrite(h.data(), 8, trace_n, fp) == trace_n;
      if (std::fclose(fp) != 0 || !ok) throw Error(std::string("cannot write ") + trace_file);
    } else {
      throw Error(std::string("cannot write ") + trace_file);
    }
  }
#endif
}

}  // namespace

void sat_lookback_2d(const SatArgs& a) {
  build(a, f32::ImageSource{});
}

void sat_lookback_2d_stack(const SatArgs& a, const guided_detail::StackSource& s) {
  if (!s.guide || !s.p || !s.acc) throw Error("sat_lookback_2d: a guided stack group without its images");
  build(a, s);
}

Variant sat_lookback_2d_variant() {
  return sat_builder_variant(
      "sat_lookback_2d", "tiled 2D, single pass (look-back up and left)",
      "decoupled look-back (Merrill & Garland 2016) over the tiles of Nehab et al. 2011",
      {DType::U8, DType::RGBA8, DType::F32}, sat_lookback_2d);
}

}  // namespace satlab::gpu
