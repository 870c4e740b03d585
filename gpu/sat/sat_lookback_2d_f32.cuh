// sat_lookback_2d's float tiles (gpu/sat/sat_lookback_2d.cu), templated on how a tile's input is loaded
// (a load policy), so that a user of the builder can form its input as the tile loads without the builder
// knowing that user: sat_lookback_2d instantiates ImageLoad, a user its own policy. build_f32 is the whole
// float launch for one channel count.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/variant.hpp"
#include "gpu/common/warp.cuh"
#include "gpu/sat/sat_common.cuh"
#include "gpu/sat/sat_lookback.cuh"
#include "gpu/sat/sat_tile_common.cuh"

namespace satlab::gpu::lookback_2d {

using namespace sat_detail;
using namespace tile_detail;

struct Words {
  unsigned long long* col;     // [nTy][E]: column x over tile row i (A), then from the image's top (P)
  unsigned long long* row;     // [nTx][H]: row y over tile column j (A), then from the image's left (P)
  unsigned long long* corner;  // 8-bit tiles [nTy][nTx]: tile row i left of tile column j (A), then with all
                               // above (P); float tiles [nTx][row warp][nTy]: below (f32::lookback_2d)
  int window;                  // words read at once
  unsigned epoch;              // this launch's (sat_lookback.cuh)
  unsigned long long* trace;   // SATLAB_SAT_TRACE builds: kTraceSlots timestamps per float tile, or null
};

// A timeline of the float tiles for tuning: built with
// -DSATLAB_SAT_TRACE=ON, `satlab bench sat --trace FILE ...` writes each float launch's %globaltimer
// stamps (thread T's at event k; slot 15 the SM), read by tools/sat_trace.py. A stamp right after a
// barrier can be read before it (the timer read is not ordered with the barrier), so events follow work,
// not barriers.
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
// slower: docs/performance.md, "Tried and lost"); 128-wide tiles halve the row chains in flight at once
// against 64 x 128 ones. A row thread's CH chains (one per channel) are looked back together
// (look_back_chains: CH x 1 words in flight per window at 4 channels, 2 x 2 at 2), not one after the
// other: 4-channel tiles at 3840x2160 0.21 -> 0.15 ms (H200).
// The tile's input comes through a load policy (below): the image (ImageLoad), or values that a user of
// the builder forms as the tile loads.
namespace f32 {

constexpr int V = 4;   // floats per thread and row
constexpr int KR = 8;  // rows per thread
// Tiles of 32 KB: kTileW elements wide, kLanesF threads across a row, kGroupsF groups of KR rows down.
constexpr int kTileW = 128, kLanesF = kTileW / V, kGroupsF = kThreads / kLanesF, kTileHF = kGroupsF * KR;
constexpr int kRowWarps = kTileHF / 32;  // a thread per tile row: these warps
constexpr int kBlocks = 5;               // per SM: 48 registers, 5 x ~38 KB of shared memory
constexpr size_t kTileBytes = size_t(kThreads) * KR * V * sizeof(float);
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
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const float s = warp::inclusive_scan<L>(warp::shift_up<L>(part[c], 1, 0.f));
    left[c] = s;
    total[c] = s + part[c];  // the row's total in lane L - 1
  }
}

// A load policy puts this thread's KR rows of V floats, from element x0 of rows y0 .., into the tile (row r
// at rows + r * kTileW), zeros below the image and past its right edge:
//   template <int CH, bool VEC> __device__ void load(const float* in, const Geometry& g, int x0, int y0,
//                                                    float* rows) const;
// VEC: the image's rows are 16-byte multiples and `in` is 16-byte aligned. The policy object is a kernel
// parameter. ImageLoad reads the builder's input image.
struct ImageLoad {
  template <int CH, bool VEC>
  __device__ __forceinline__ void load(const float* __restrict__ in, const Geometry& g, int x0, int y0,
                                       float* rows) const {
    if constexpr (VEC) {
      // The thread's KR rows straight to the tile, all in flight at once and none held in registers
      // (cp.async, L2 only, marked evict-first: the input's only read); zeros below the image and past its
      // right edge.
      const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(rows));
      unsigned long long policy;
      asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
      const float* row0 = in + size_t(y0) * size_t(g.E) + size_t(x0);
#pragma unroll
      for (int r = 0; r < KR; ++r) {
        const bool inside = y0 + r < g.H && x0 < g.E;
        const float* src = inside ? row0 + size_t(r) * size_t(g.E) : in;
        asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(
                         dst + unsigned(r * kTileW * 4)),
                     "l"(src), "r"(inside ? 16 : 0), "l"(policy)
                     : "memory");
      }
      asm volatile("cp.async.wait_all;\n" ::: "memory");  // this thread's copies, visible to it
    } else {
#pragma unroll
      for (int r = 0; r < KR; ++r) {
        float f[V];
        load4_unaligned(in, g, x0, y0 + r, f);
        *reinterpret_cast<float4*>(rows + r * kTileW) = make_float4(f[0], f[1], f[2], f[3]);
      }
    }
  }
};

// MW > 0: the row threads' CH chains looked back together, MW words per chain at once; 0: one after the
// other (chain_step). Load: how the tile's input is loaded (ImageLoad, or a user's policy: above).
template <int CH, bool VEC, int MW, class Load>
__global__ void __launch_bounds__(kThreads, kBlocks)
    lookback_2d(const float* __restrict__ in, float* __restrict__ out, Geometry g, Words w, Load load) {
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
  const lookback::EpochWord<double> word{w.epoch};  // the look-back words' codec
  SAT_TRACE(0, 0)  // start
  load.template load<CH, VEC>(in, g, x0, y0, mine_rows);
  SAT_TRACE(0, 1)  // thread 0's loads in

  // Per row: the row's total (lane L - 1 to rowv), and each element's row sum inside the tile up to it,
  // stored in place for the rebuild (the same adds in the same order as the rebuild's scan had: the SAT is
  // bit for bit what it was; held in registers instead, they made the kernel spill). Per
  // column: the sum over this thread's rows (two halves, 4 adds deep) to part. One row scan per row, not
  // two: a 4-channel row is 4 x 6 shuffles (4-channel builds 0.172 -> 0.163 ms at 3840x2160, the SAT of
  // the guided filter's a and b 0.154 -> 0.143, H200).
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
    if (x < g.E) above = lookback::chain_step<kWinF>(w.col + size_t(x), size_t(g.E), i, s, w.window, word);
    SAT_TRACE(0, 3)  // column look-back done
    pre[0] = warp::inclusive_scan<32, CH>(above);  // per channel: lanes CH apart share one
    if ((t & 31) >= 32 - CH) wtot[warp][t % CH] = pre[0];
  } else if (t < kCornerT + kRW * CH) {
    const int r = (t - kCornerT) / CH, c = (t - kCornerT) % CH;
    double corner = 0;
    if (j > 0) {
      unsigned long long* chain = w.corner + (size_t(j) * kRW + r) * g.nTy * CH + c;
      corner = lookback::look_back_chain<kWinF>(chain, CH, i, w.window, w.window, word);
      // Element i's inclusive prefix, where its aggregate is there already (no wait: readers may also add
      // the aggregate and go on).
      unsigned long long* own = chain + size_t(i) * CH;
      const unsigned long long v = lookback::load(own);
      if (word.flag(v) == lookback::kAggregate)
        lookback::publish_inclusive(own, corner + word.value(v), word);
    }
    corner_s[r][c] = corner;
    SAT_TRACE(kCornerT, 4)  // corner done
  } else if (t >= kRowT && MW > 0 && CH > 1) {
    // The row's CH chains looked back together (look_back_chains: one set of round trips, not CH in a
    // row); the rows' own sums read again from rowv after it (not held in registers through it).
    const int u = t - kRowT, y = i * kTileH + u, rw = warp - kRowT / 32;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const double sum = warp::all_reduce(double(rowv[u * CH + c]));
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
          lookback::publish_aggregate(chain + size_t(j) * stride + c, double(rowv[u * CH + c]), word);
        lookback::look_back_chains<CH, (MW > 0 ? MW : 1)>(chain, stride, j, min(w.window, MW), word, lft);
      }
#pragma unroll
      for (int c = 0; c < CH; ++c)
        lookback::publish_inclusive(chain + size_t(j) * stride + c, lft[c] + double(rowv[u * CH + c]), word);
    }
    SAT_TRACE(kRowT, 5)  // first row warp's look-backs done
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      pre[c] = warp::inclusive_scan(lft[c]);
      if ((t & 31) == 31) {
        wtot[warp][c] = pre[c];
        if (j + 1 < g.nTx)  // this warp's aggregate in the corner chain of tile column j + 1
          lookback::publish_aggregate(w.corner + ((size_t(j + 1) * kRW + rw) * g.nTy + i) * CH + c,
                                      pre[c] + wown[rw][c], word);
      }
    }
  } else if (t >= kRowT) {
    const int u = t - kRowT, y = i * kTileH + u;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const double own = double(rowv[u * CH + c]);
      // The rows' own sums over the warp (before the look-back holds its registers).
      const double sum = warp::all_reduce(own);
      if ((t & 31) == 31) wown[warp - kRowT / 32][c] = sum;  // read back by this thread: no registers held
      double lft = 0;
      if (y < g.H)
        lft = lookback::chain_step<kWinF>(w.row + size_t(y) * CH + c, size_t(g.H) * CH, j, own, w.window,
                                          word);
      SAT_TRACE(kRowT, 5)  // first row warp's look-backs done
      pre[c] = warp::inclusive_scan(lft);
      if ((t & 31) == 31) {
        wtot[warp][c] = pre[c];
        const int rw = warp - kRowT / 32;
        if (j + 1 < g.nTx)  // this warp's aggregate in the corner chain of tile column j + 1
          lookback::publish_aggregate(w.corner + ((size_t(j + 1) * kRW + rw) * g.nTy + i) * CH + c,
                                      pre[c] + wown[rw][c], word);
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

// The float launch's geometry, words and trace buffer (sat_lookback_2d.cu): begin_f32 checks the
// arguments (F32, 1, 2 or 4 channels) and announces the phase; end_f32 checks the launch (and, in trace
// builds, writes the timeline).
struct F32Launch {
  Geometry g;
  Words w;
  bool vec;
};
F32Launch begin_f32(const SatArgs& a);
void end_f32(const SatArgs& a, const F32Launch& l);

template <auto k, class Load>
void launch_f32_kernel(const Geometry& g, const float* in, float* out, const Words& w, const SatArgs& a,
                       const Load& load) {
  static const cudaError_t attr = [] {  // once per kernel: the tile is dynamic shared memory
    cudaError_t e =
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(f32::kTileBytes));
    if (e == cudaSuccess)
      e = cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared);
    return e;
  }();
  cuda_check(attr, "cudaFuncSetAttribute (shared memory) of sat_lookback_2d's float tiles", a);
  k<<<unsigned(size_t(g.nTx) * g.nTy), kThreads, f32::kTileBytes, cudaStream_t(a.stream)>>>(in, out, g, w, load);
}

template <int CH, int MW, class Load>
void launch_f32_v(const SatArgs& a, const Geometry& g, const Words& w, bool vec, const Load& load) {
  const auto* in = static_cast<const float*>(a.in);
  auto* out = static_cast<float*>(a.out);
  if (vec)
    launch_f32_kernel<f32::lookback_2d<CH, true, MW, Load>>(g, in, out, w, a, load);
  else
    launch_f32_kernel<f32::lookback_2d<CH, false, MW, Load>>(g, in, out, w, a, load);
}

template <int CH, class Load>
void launch_f32(const SatArgs& a, const Geometry& g, const Words& w, bool vec, const Load& load) {
  // Several channels: their row chains looked back together, 4 words in all per window (1 per chain
  // at 4 channels: 48 registers, no spill; 2 words per chain spilled and measured slower, as did 4 blocks
  // per SM: docs/performance.md, "Tried and lost").
  launch_f32_v<CH, CH == 1 ? 0 : 4 / CH>(a, g, w, vec, load);
}

// The float SAT of a.channels == CH channels, each tile's input from `load`.
template <int CH, class Load>
void build_f32(const SatArgs& a, const Load& load) {
  const F32Launch l = begin_f32(a);
  launch_f32<CH>(a, l.g, l.w, l.vec, load);
  end_f32(a, l);
}

}  // namespace satlab::gpu::lookback_2d
