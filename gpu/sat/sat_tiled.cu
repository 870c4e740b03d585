// Tiled 2D SAT for 8-bit data (1 or 4 interleaved channels) or RGBA16 (4 channels of uint16; the layered
// DoF mode's 12-bit linear light, one table where 8-bit input needs two) -> uint32 with wrap-around: the
// three-pass tile scheme of Nehab, Maximo, Lima and Hoppe, "GPU-Efficient Recursive Filtering and Summed-Area
// Tables" (SIGGRAPH Asia 2011), algorithm SAT:
//   1. tile sums: each 128-byte x (32 K)-row tile writes its column sums, row sums and total;
//   2. carries: column sums scanned down the tile rows, row sums across the tile columns, totals down;
//   3. rebuild: each tile re-reads its input and writes its SAT plus the carries.
// A thread owns 16 bytes of K consecutive rows (one 16-byte load per row); 8 threads span the tile's
// width, 32 groups of K rows its height. Row prefixes come from warp shuffles, column carries between
// groups from shared memory. Bytes: input read twice, output written once: 6 B per element (plus the
// carry tables, ~1/32 of that); the minimum is 5 B.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/common/warp.cuh"
#include "gpu/device.hpp"
#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_common.cuh"
#include "gpu/sat/sat_tile_common.cuh"

namespace satlab::gpu {
namespace {

using namespace sat_detail;
using namespace tile_detail;

// Rebuild blocks resident per SM, by rows per thread: caps registers (128 for K = 8, 80 for K = 4) so
// that several blocks overlap each other's barriers and loads.
template <int K>
constexpr int kRebuildBlocksPerSm = K >= 8 ? 2 : 3;

// Tuning policy: ROWS per thread (0: by the image, pick_rows; else 1, 4 or 8 forced), the rebuild's stores
// STAGED through shared memory (else each thread stores its own 64 bytes: 38% slower), and the tile sums by
// RESIDENT blocks walking the tiles (else a block per tile, measured slower). The default is the first; the
// others are bench rows (sat_tiled_policy_variants).
template <int ROWS, bool STAGED, bool RESIDENT>
struct TiledPolicy {
  static constexpr int kRows = ROWS;
  static constexpr bool kStaged = STAGED, kResidentSums = RESIDENT;
};
using TiledDefault = TiledPolicy<0, true, true>;

// Pass 1: column sums C[i][x], row sums R[j][y][c], tile totals T[i][j][c]. Each block walks tiles
// t = blockIdx.x, + gridDim.x, ... in row-major order, the next tile's loads in flight while it adds up the
// current one (a grid of one block per tile reads each tile with no overlap: TiledPolicy's RESIDENT off).
template <int CH, int K, bool VEC, typename E>
__global__ void __launch_bounds__(kThreads)
    tile_sums(const E* __restrict__ in, Geometry g, uint32_t* __restrict__ C, uint32_t* __restrict__ R,
              uint32_t* __restrict__ T) {
  __shared__ uint32_t cols[kGroups][kTileE + 1];
  __shared__ uint32_t warp_tot[kThreads / 32][CH];
  const int lane = threadIdx.x & (kLanes - 1), grp = threadIdx.x / kLanes;
  const int nTiles = g.nTx * g.nTy;
  using P = typename Packed<E>::type;
  auto load = [&](int t, P(&v)[K]) {
    const int x0 = (t % g.nTx) * kTileE + lane * 16, y0 = (t / g.nTx) * kGroups * K + grp * K;
#pragma unroll
    for (int r = 0; r < K; ++r) v[r] = load_row<VEC, false>(in, g, x0, y0 + r);
  };
  P next[K];
  if (int(blockIdx.x) < nTiles) load(blockIdx.x, next);
  for (int tile = blockIdx.x; tile < nTiles; tile += gridDim.x) {
    const int i = tile / g.nTx, j = tile % g.nTx;
    const int y0 = i * kGroups * K + grp * K;
    P v[K];
#pragma unroll
    for (int r = 0; r < K; ++r) v[r] = next[r];
    if (tile + int(gridDim.x) < nTiles) load(tile + gridDim.x, next);

    uint32_t cs[16] = {};
#pragma unroll
    for (int r = 0; r < K; ++r) {
      uint32_t b[16], t[CH] = {};
      unpack(v[r], b);
#pragma unroll
      for (int k = 0; k < 16; ++k) {
        cs[k] += b[k];
        t[k % CH] += b[k];
      }
      row_reduce<CH>(t);
      const int y = y0 + r;
      if (lane == 0 && y < g.H)
#pragma unroll
        for (int c = 0; c < CH; ++c) R[(size_t(j) * g.H + y) * CH + c] = t[c];
    }
    // cols and warp_tot are free again: their last readers passed the second barrier of the tile before.
#pragma unroll
    for (int k = 0; k < 16; ++k) cols[grp][lane * 16 + k] = cs[k];
    __syncthreads();
    if (threadIdx.x < kTileE) {
      const int t = threadIdx.x;
      uint32_t s = 0;
      for (int q = 0; q < kGroups; ++q) s += cols[q][t];
      const int x = j * kTileE + t;
      if (x < g.E) C[size_t(i) * g.E + x] = s;
        // Tile total per channel: lanes t, t+CH, ... share a channel.
      s = warp::all_reduce<32, CH>(s);
      if ((t & 31) < CH) warp_tot[t >> 5][t & 31] = s;
    }
    __syncthreads();
    if (threadIdx.x < CH) {
      uint32_t s = 0;
      for (int w = 0; w < kTileE / 32; ++w) s += warp_tot[w][threadIdx.x];
      T[(size_t(i) * g.nTx + j) * CH + threadIdx.x] = s;
    }
  }
}

// Pass 2, in place (sat_common's carry chains, 32 chains per block): C becomes the exclusive scan down
// the tile rows (sum of the column above the tile), R the exclusive scan across tile columns (sum of the
// row left of the tile), T the exclusive scan of tile totals down the tile rows (the rebuild adds up
// those of the tiles to its left: the sum of everything above and left of it).
template <int CH>
__global__ void __launch_bounds__(kThreads)
    carries(Geometry g, uint32_t* __restrict__ C, uint32_t* __restrict__ R, uint32_t* __restrict__ T,
            int c_blocks, int r_blocks) {
  const int b = blockIdx.x;
  if (b < c_blocks)
    exclusive_chains(C, StridedBase{1}, size_t(g.E), g.E, g.nTy, b * kChainLanes);
  else if (b < c_blocks + r_blocks)
    exclusive_chains(R, StridedBase{1}, size_t(g.H) * CH, g.H * CH, g.nTx, (b - c_blocks) * kChainLanes);
  else
    exclusive_chains(T, StridedBase{1}, size_t(g.nTx) * CH, g.nTx * CH, g.nTy,
                     (b - c_blocks - r_blocks) * kChainLanes);
}

// Pass 3: rebuild. S(x, y) = S(x, y0 - 1) + sum over rows y0..y of (row sum left of the tile + in-tile
// row prefix); the first term comes from the carries and the groups above, accumulated in shared memory.
template <int CH, int K, bool VEC, typename E>
__global__ void __launch_bounds__(kThreads, kRebuildBlocksPerSm<K>)
    rebuild(const E* __restrict__ in, Geometry g, const uint32_t* __restrict__ C,
            const uint32_t* __restrict__ L, const uint32_t* __restrict__ T, uint32_t* __restrict__ out,
            bool staged) {
  __shared__ __align__(16) uint32_t start[kGroups][kLanes * kPad];
  __shared__ uint32_t warp_tot[kTileE / 32][CH];
  __shared__ uint32_t corner[CH];
  const int lane = threadIdx.x & (kLanes - 1), grp = threadIdx.x / kLanes;
  const int i = blockIdx.y, j = blockIdx.x;
  const int x0 = j * kTileE + lane * 16, y0 = i * kGroups * K + grp * K;
  const size_t Lstride = size_t(g.H) * CH;
  const uint32_t* Lj = L + size_t(j) * Lstride;

  typename Packed<E>::type v[K];
#pragma unroll
  for (int r = 0; r < K; ++r) v[r] = load_row<VEC, true>(in, g, x0, y0 + r);

  // This group's contribution to the SAT row below it.
  {
    uint32_t lsum[CH] = {};
#pragma unroll
    for (int r = 0; r < K; ++r)
      if (y0 + r < g.H)
#pragma unroll
        for (int c = 0; c < CH; ++c) lsum[c] += Lj[size_t(y0 + r) * CH + c];
    group_start<CH, K>(v, lsum, &start[grp][lane * kPad]);
  }
  // S(x, tile top - 1) for the tile's columns: corner + prefix across the tile of the column carries.
  uint32_t top = 0;
  if (threadIdx.x < kTileE) {
    const int t = threadIdx.x, x = j * kTileE + t;
    top = x < g.E ? C[size_t(i) * g.E + x] : 0u;
    const int wl = t & 31;
    top = warp::inclusive_scan<32, CH>(top);
    if (wl >= 32 - CH) warp_tot[t >> 5][wl % CH] = top;
  } else if (threadIdx.x < kTileE + 32) {
    // The next warp adds up the tile totals above and left of the tile (T holds them summed down).
    const int wl = threadIdx.x - kTileE;
    uint32_t s[CH] = {};
    for (int jj = wl; jj < j; jj += 32)
#pragma unroll
      for (int c = 0; c < CH; ++c) s[c] += T[(size_t(i) * g.nTx + jj) * CH + c];
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      s[c] = warp::all_reduce(s[c]);
      if (wl == 0) corner[c] = s[c];
    }
  }
  __syncthreads();
  if (threadIdx.x < kTileE) {
    const int t = threadIdx.x, c = t % CH;
    top += corner[c];
    for (int w = 0; w < (t >> 5); ++w) top += warp_tot[w][c];
    scan_down_groups(top, start);
  }
  __syncthreads();

  write_rows<CH, K, VEC>(
      v, [&](int y, int c) { return Lj[size_t(y) * CH + c]; }, start, out, g, j, y0, x0, staged);
}

template <class P, int CH, int K, bool VEC, typename E>
void run_tiled(const SatArgs& a, const Geometry& g) {
  const size_t nC = size_t(g.nTy) * g.E, nR = size_t(g.nTx) * g.H * CH, nT = size_t(g.nTx) * g.nTy * CH;
  Scratch s((nC + nR + nT) * sizeof(uint32_t), a);
  uint32_t *C = s.as<uint32_t>(), *R = s.as<uint32_t>(nC), *T = s.as<uint32_t>(nC + nR);
  cudaStream_t st = cudaStream_t(a.stream);
  const auto* in = static_cast<const E*>(a.in);
  const dim3 grid(unsigned(g.nTx), unsigned(g.nTy));
  // Tile-sum blocks resident at once (the kernel's occupancy, asked once per instantiation, not per frame).
  static const int resident = [&] {
    int per_sm = 0;
    cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tile_sums<CH, K, VEC, E>, kThreads, 0),
               "sat_tiled occupancy", a);
    return std::max(1, per_sm) * std::max(1, probe().sm_count);
  }();
  const int nTiles = g.nTx * g.nTy, sums_grid = P::kResidentSums ? std::min(nTiles, resident) : nTiles;
  phase(a, "sat tiles: sums");
  tile_sums<CH, K, VEC, E><<<sums_grid, kThreads, 0, st>>>(in, g, C, R, T);
  launch_check("sat_tiled tile_sums", a);
  const int cb = int(ceil_div(size_t(g.E), kChainLanes)), rb = int(ceil_div(size_t(g.H) * CH, kChainLanes)),
            tb = int(ceil_div(size_t(g.nTx) * CH, kChainLanes));
  phase(a, "sat tiles: carries");
  carries<CH><<<cb + rb + tb, kThreads, 0, st>>>(g, C, R, T, cb, rb);
  launch_check("sat_tiled carries", a);
  phase(a, "sat tiles: rebuild");
  rebuild<CH, K, VEC, E>
      <<<grid, kThreads, 0, st>>>(in, g, C, R, T, static_cast<uint32_t*>(a.out), P::kStaged);
  launch_check("sat_tiled rebuild", a);
}

template <class P, int CH, bool VEC, typename E>
void pick_rows(const SatArgs& a) {
  Geometry g{a.width * CH, a.height, 0, 0};
  g.nTx = int(ceil_div(size_t(g.E), kTileE));
  auto go = [&](auto k) {
    constexpr int K = decltype(k)::value;
    g.nTy = int(ceil_div(size_t(g.H), kGroups * K));
    run_tiled<P, CH, K, VEC, E>(a, g);
  };
  if constexpr (P::kRows == 8) {
    go(std::integral_constant<int, 8>());
  } else if constexpr (P::kRows == 4) {
    go(std::integral_constant<int, 4>());
  } else if constexpr (P::kRows == 1) {
    go(std::integral_constant<int, 1>());
  } else {
    static_assert(P::kRows == 0, "rows per thread: 0 (by the image), 1, 4 or 8");
    // Tall tiles (K = 4 measured faster than 8 on the H100) where they still give every SM several
    // blocks, else short ones.
    const int sms = std::max(1, probe().sm_count);
    const size_t tall_blocks = size_t(g.nTx) * ceil_div(size_t(g.H), kGroups * 4);
    if (tall_blocks >= size_t(4 * sms))
      go(std::integral_constant<int, 4>());
    else
      go(std::integral_constant<int, 1>());
  }
}

template <class P, int CH, typename E>
void pick_vec(const SatArgs& a) {
  const bool vec = (size_t(a.width) * CH) % 16 == 0 && reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
  if (vec)
    pick_rows<P, CH, true, E>(a);
  else
    pick_rows<P, CH, false, E>(a);
}

template <class P>
void build(const SatArgs& a) {
  check_args(a, true, true);
  if (a.height > 65535 * kGroups)
    throw Error("sat_tiled: image taller than " + std::to_string(65535 * kGroups));
  if (a.dtype == DType::RGBA16)
    pick_vec<P, 4, uint16_t>(a);
  else if (a.channels == 1)
    pick_vec<P, 1, uint8_t>(a);
  else
    pick_vec<P, 4, uint8_t>(a);
}

}  // namespace

void sat_tiled(const SatArgs& a) {
  build<TiledDefault>(a);
}

Variant sat_tiled_variant() {
  return sat_builder_variant("sat_tiled", "tiled 2D (tile sums | carries | rebuild)",
                             "Nehab et al. 2011, GPU-Efficient Recursive Filtering and Summed-Area Tables",
                             {DType::U8, DType::RGBA8, DType::RGBA16}, sat_tiled);
}

std::vector<Variant> sat_tiled_policy_variants() {
  const std::vector<DType> types = {DType::U8, DType::RGBA8, DType::RGBA16};
  const char* src = "bench policy: a tuning alternative to the default (TiledPolicy)";
  return {
    sat_builder_variant("sat_tiled@rows1", "sat_tiled, 1 row per thread at every size", src, types,
                        build<TiledPolicy<1, true, true>>),
    sat_builder_variant("sat_tiled@rows4", "sat_tiled, 4 rows per thread at every size", src, types,
                        build<TiledPolicy<4, true, true>>),
    sat_builder_variant("sat_tiled@rows8", "sat_tiled, 8 rows per thread (2 blocks per SM)", src, types,
                        build<TiledPolicy<8, true, true>>),
    sat_builder_variant("sat_tiled@direct_stores", "sat_tiled, rebuild stores not staged", src, types,
                        build<TiledPolicy<0, false, true>>),
    sat_builder_variant("sat_tiled@sums_per_tile", "sat_tiled, tile sums by a block per tile", src, types,
                        build<TiledPolicy<0, true, false>>),
  };
}

}  // namespace satlab::gpu
