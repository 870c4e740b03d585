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
#include <string>
#include <vector>

#include "gpu/common/warp.cuh"
#include "gpu/device.hpp"
#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_host.hpp"
#include "gpu/sat/sat_lookback_2d_f32.cuh"

namespace satlab::gpu {
namespace lookback_2d {
namespace {

constexpr int K = 4;     // rows per thread: 128-row tiles
constexpr int kWin = 4;  // look-back words held at once (registers: 8 would spill at 4 blocks per SM)
constexpr int kTileH = kGroups * K;
static_assert(kThreads == 2 * kTileE && kTileH == kTileE, "a thread per column, then a thread per row");

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
  const lookback::EpochWord<uint32_t> word{w.epoch};  // the look-back words' codec

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
    if (x < g.E) mine = lookback::chain_step<kWin>(w.col + size_t(x), size_t(g.E), i, s, w.window, word);
  } else {
    for (int e = t - kTileE; e < kTileH * CH; e += kThreads - kTileE) {
      const int y = i * kTileH + e / CH;
      const uint32_t s = rows[e];
      uint32_t left = 0;
      if (y < g.H)
        left = lookback::chain_step<kWin>(w.row + size_t(y) * CH + e % CH, size_t(g.H) * CH, j, s, w.window,
                                          word);
      rows[e] = left;  // this thread alone reads and writes rows[e] between the barriers
      mine = left;
    }
  }
  // Inclusive prefix, per channel, of the column sums above the tile along each warp (threads < 128;
  // lanes CH apart share a channel), and (one channel) the sum of the rows' left sums (threads >= 128);
  // warp totals to shared memory.
  const int wl = t & 31, warp = t >> 5;
  if (CH == 1 || t < kTileE) {  // whole warps
    mine = warp::inclusive_scan<32, CH>(mine);
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
    corner_s[c] = lookback::chain_step<kWin>(w.corner + size_t(j) * CH + c, size_t(g.nTx) * CH, i, left,
                                             w.window, word);
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

#ifdef SATLAB_SAT_TRACE
// The tuning build's timeline file (set_sat_trace_file; empty: none).
std::string& trace_file() {
  static std::string f;
  return f;
}
#endif

}  // namespace

F32Launch begin_f32(const SatArgs& a) {
  check_args(a, false);
  const int CH = a.channels;
  if (CH == 3) throw Error("sat_lookback_2d takes float with 1, 2 or 4 channels, not 3");
  F32Launch l{};
  Geometry& g = l.g;
  g = Geometry{a.width * CH, a.height, 0, 0};
  g.nTx = int(ceil_div(size_t(g.E), f32::kTileW));
  g.nTy = int(ceil_div(size_t(g.H), f32::kTileHF));
  const size_t nCol = size_t(g.nTy) * g.E, nRow = size_t(g.nTx) * g.H * CH,
               nCorner = size_t(g.nTx) * g.nTy * CH * size_t(f32::kRowWarps);
  phase(a, "sat look-back 2d: tiles");
  const LookbackWords lw = lookback_words(nCol + nRow + nCorner, a);
  unsigned long long* trace = nullptr;
#ifdef SATLAB_SAT_TRACE
  static unsigned long long* trace_buf = nullptr;  // kept to exit: a tuning build
  static size_t trace_cap = 0;
  const size_t trace_n = size_t(g.nTx) * g.nTy * kTraceSlots;
  if (!trace_file().empty()) {
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
  // Look-back windows of f32::kWinF words (1 to 8 measured alike).
  l.w = Words{lw.words, lw.words + nCol, lw.words + nCol + nRow, f32::kWinF, lw.epoch, trace};
  l.vec = g.E % 4 == 0 && reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
          reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
  return l;
}

void end_f32(const SatArgs& a, const F32Launch& l) {
  launch_check("sat_lookback_2d", a);
#ifdef SATLAB_SAT_TRACE
  if (l.w.trace) {  // this launch's timeline replaces the last one's: header nTx, nTy, E, H (int32), stamps
    const Geometry& g = l.g;
    const size_t trace_n = size_t(g.nTx) * g.nTy * kTraceSlots;
    std::vector<unsigned long long> h(trace_n);
    cuda_check(cudaMemcpyAsync(h.data(), l.w.trace, trace_n * 8, cudaMemcpyDeviceToHost, cudaStream_t(a.stream)),
               "cudaMemcpyAsync (sat trace)", a);
    cuda_check(cudaStreamSynchronize(cudaStream_t(a.stream)), "cudaStreamSynchronize (sat trace)", a);
    const std::string& file = trace_file();
    if (FILE* fp = std::fopen(file.c_str(), "wb")) {
      const int hdr[4] = {g.nTx, g.nTy, g.E, g.H};
      const bool ok =
          std::fwrite(hdr, sizeof hdr, 1, fp) == 1 && std::fwrite(h.data(), 8, trace_n, fp) == trace_n;
      if (std::fclose(fp) != 0 || !ok) throw Error("cannot write " + file);
    } else {
      throw Error("cannot write " + file);
    }
  }
#else
  (void)l;
#endif
}

namespace {

// 8-bit tiles, BLOCKS resident per SM for one channel (4: 64 registers; 3 as a bench policy,
// sat_lookback_2d@3blocks); 4 channels always 3 (64 registers would spill). Look-back windows of kWin words
// (1 to 8 measured alike).
template <int BLOCKS>
void build_u8(const SatArgs& a) {
  check_args(a, true);
  const int CH = a.channels;  // check_args: U8 1, RGBA8 4
  Geometry g{a.width * CH, a.height, 0, 0};
  g.nTx = int(ceil_div(size_t(g.E), kTileE));
  g.nTy = int(ceil_div(size_t(g.H), kTileH));
  const size_t nCol = size_t(g.nTy) * g.E, nRow = size_t(g.nTx) * g.H * CH, nCorner = size_t(g.nTx) * g.nTy * CH;
  phase(a, "sat look-back 2d: tiles");
  const LookbackWords lw = lookback_words(nCol + nRow + nCorner, a);
  const Words w{lw.words, lw.words + nCol, lw.words + nCol + nRow, kWin, lw.epoch, nullptr};
  const bool vec = g.E % 16 == 0 && reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
  const auto* in = static_cast<const uint8_t*>(a.in);
  auto* out = static_cast<uint32_t*>(a.out);
  const auto k = CH == 1 ? (vec ? lookback_2d<1, true, BLOCKS> : lookback_2d<1, false, BLOCKS>)
                         : (vec ? lookback_2d<4, true, 3> : lookback_2d<4, false, 3>);
  k<<<unsigned(size_t(g.nTx) * g.nTy), kThreads, 0, cudaStream_t(a.stream)>>>(in, out, g, w, true);
  launch_check("sat_lookback_2d", a);
}

template <int BLOCKS>
void build(const SatArgs& a) {
  if (a.dtype != DType::F32) return build_u8<BLOCKS>(a);
  if (a.channels == 1) return build_f32<1>(a, f32::ImageLoad{});
  if (a.channels == 2) return build_f32<2>(a, f32::ImageLoad{});
  build_f32<4>(a, f32::ImageLoad{});  // 3 channels: refused by begin_f32
}

}  // namespace
}  // namespace lookback_2d

void sat_lookback_2d(const SatArgs& a) {
  lookback_2d::build<4>(a);
}

Variant sat_lookback_2d_variant() {
  return sat_builder_variant(
      "sat_lookback_2d", "tiled 2D, single pass (look-back up and left)",
      "decoupled look-back (Merrill & Garland 2016) over the tiles of Nehab et al. 2011",
      {DType::U8, DType::RGBA8, DType::F32}, sat_lookback_2d);
}

std::vector<Variant> sat_lookback_2d_policy_variants() {
  return {sat_builder_variant("sat_lookback_2d@3blocks", "sat_lookback_2d, 8-bit tiles at 3 blocks per SM",
                              "bench policy: 3 blocks per SM (80 registers) instead of 4", {DType::U8},
                              lookback_2d::build<3>)};
}

void set_sat_trace_file(const std::string& path) {
#ifdef SATLAB_SAT_TRACE
  lookback_2d::trace_file() = path;
#else
  if (!path.empty()) throw Error("--trace needs a build configured with -DSATLAB_SAT_TRACE=ON");
#endif
}

}  // namespace satlab::gpu
