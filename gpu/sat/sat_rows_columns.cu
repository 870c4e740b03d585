// SAT as a row pass then a column pass, each reading and writing whole 16-byte vectors along rows (the
// column pass never strides down memory: threads lie along x and carry down y):
//   1. rows: a warp owns K rows of a block of 8 K rows and walks them left to right, 16 bytes of input
//      per lane: lane-serial scan, warp-shuffle scan, running carry per row (so no block-sum pass along
//      x); it writes the row prefixes and, per 512-byte stretch, the block's column sums;
//   2. column block sums scanned down the blocks (exclusive; sat_common's carry chains);
//   3. columns: each 128-element x 8K-row tile scans down its columns (thread-serial, then across
//      warps through shared memory), adds the carry from step 2, writes in place.
// This is the three-phase scheme (per-block scan | block-sum scan | add) down the columns, with the
// per-block sums fused into the row pass. Integer input gives uint32 with wrap-around; float keeps every
// sum in float64 and rounds each stored value once per pass.
// Bytes: rows 1 + 4 (u8) or 4 + 4 (f32), columns 4 + 4, block sums ~3 x 4 / (8 K): ~13.4 B per u8
// element (minimum 5), ~16.4 B per float (minimum 8).
#include <algorithm>
#include <cstdlib>
#include <type_traits>

#include "gpu/common/warp.cuh"
#include "gpu/device.hpp"
#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_common.cuh"

namespace satlab::gpu {
namespace {

using namespace sat_detail;

constexpr int kWarps = 8, kThreads = kWarps * 32;

template <typename In>
struct Traits;
template <>
struct Traits<uint8_t> {
  using Out = uint32_t;         // stored
  using Sum = uint32_t;         // accumulated
  static constexpr int V = 16;  // elements per 16-byte load
};
template <>
struct Traits<float> {
  using Out = float;
  using Sum = double;
  static constexpr int V = 4;
};

// 16 bytes of row y from element x0, zeros past the image (VEC: rows are 16-byte aligned multiples).
template <typename In>
__device__ __forceinline__ uint4 load16(const In* __restrict__ in, int E, int H, int x0, int y) {
  if (y >= H || x0 >= E) return make_uint4(0, 0, 0, 0);
  return __ldg(reinterpret_cast<const uint4*>(in + size_t(y) * size_t(E) + size_t(x0)));
}


// V elements of row y from element x0, element by element (rows of any length), zeros past the image.
template <typename In>
__device__ __forceinline__ void load_row(const In* __restrict__ in, int E, int H, int x0, int y,
                                         typename Traits<In>::Sum (&v)[Traits<In>::V]) {
  using Sum = typename Traits<In>::Sum;
  const In* p = in + size_t(y) * size_t(E) + size_t(x0);
#pragma unroll
  for (int k = 0; k < Traits<In>::V; ++k) v[k] = y < H && x0 + k < E ? Sum(__ldg(p + k)) : Sum(0);
}

// Pass 1. colsum[b * E + x] = sum of out over the block's 8K rows at column x.
template <typename In, int CH, int K, bool VEC>
__global__ void __launch_bounds__(kThreads)
    rows_pass(const In* __restrict__ in, typename Traits<In>::Out* __restrict__ out, int E, int H,
              typename Traits<In>::Sum* __restrict__ colsum) {
  using Out = typename Traits<In>::Out;
  using Sum = typename Traits<In>::Sum;
  constexpr int V = Traits<In>::V, TW = 32 * V;
  constexpr bool kStage = VEC && std::is_same_v<In, uint8_t>;  // 16 outputs per lane: stage for coalescing
  __shared__ Sum cols[kWarps][V][33];
  __shared__ __align__(16) Out stage[kStage ? kWarps : 1][kStage ? 32 * 20 : 4];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int yb = blockIdx.x * kWarps * K, y0 = yb + warp * K;
  Sum carry[K][CH];
#pragma unroll
  for (int r = 0; r < K; ++r)
#pragma unroll
    for (int c = 0; c < CH; ++c) carry[r][c] = Sum(0);

  // VEC: the next stretch's loads are issued before this one is scanned, so they fly during the scan,
  // the stores and the barriers.
  uint4 raw[K];
  if constexpr (VEC)
#pragma unroll
    for (int r = 0; r < K; ++r) raw[r] = load16(in, E, H, lane * V, y0 + r);
  for (int xt = 0; xt < E; xt += TW) {
    const int x0 = xt + lane * V;
    Sum v[K][V];
    if constexpr (VEC) {
#pragma unroll
      for (int r = 0; r < K; ++r) unpack16<In>(raw[r], v[r]);
#pragma unroll
      for (int r = 0; r < K; ++r) raw[r] = load16(in, E, H, x0 + TW, y0 + r);
    } else {
#pragma unroll
      for (int r = 0; r < K; ++r) load_row<In>(in, E, H, x0, y0 + r, v[r]);
    }
    Sum cs[V];
#pragma unroll
    for (int k = 0; k < V; ++k) cs[k] = Sum(0);
#pragma unroll
    for (int r = 0; r < K; ++r) {
      Sum run[CH];
#pragma unroll
      for (int c = 0; c < CH; ++c) run[c] = Sum(0);
#pragma unroll
      for (int k = 0; k < V; ++k) v[r][k] = run[k % CH] += v[r][k];
      Sum ex[CH];
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        const Sum t = warp::inclusive_scan(run[c]);
        ex[c] = t - run[c] + carry[r][c];
        carry[r][c] += warp::broadcast(t, 31);
      }
      Out o[V];
#pragma unroll
      for (int k = 0; k < V; ++k) {
        o[k] = Out(v[r][k] + ex[k % CH]);
        cs[k] += Sum(o[k]);
      }
      const int y = y0 + r;
      if constexpr (kStage) {
        __syncwarp();
#pragma unroll
        for (int k = 0; k < V; k += 4)
          *reinterpret_cast<uint4*>(&stage[warp][lane * 20 + k]) =
              make_uint4(o[k], o[k + 1], o[k + 2], o[k + 3]);
        __syncwarp();
        if (y < H)
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const int chunk = 32 * q + lane, x = xt + chunk * 4;  // 4 outputs per chunk
            if (x < E)
              __stcs(reinterpret_cast<uint4*>(out + size_t(y) * E + x),
                     *reinterpret_cast<const uint4*>(&stage[warp][(chunk / 4) * 20 + (chunk % 4) * 4]));
          }
      } else if constexpr (VEC) {
        if (y < H && x0 < E)
          __stcs(reinterpret_cast<float4*>(out + size_t(y) * E + x0), make_float4(o[0], o[1], o[2], o[3]));
      } else if (y < H) {
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (x0 + k < E) out[size_t(y) * E + x0 + k] = o[k];
      }
    }
#pragma unroll
    for (int k = 0; k < V; ++k) cols[warp][k][lane] = cs[k];
    __syncthreads();
    for (int e = threadIdx.x; e < TW; e += kThreads) {
      Sum s = Sum(0);
#pragma unroll
      for (int w = 0; w < kWarps; ++w) s += cols[w][e % V][e / V];
      if (xt + e < E) colsum[size_t(blockIdx.x) * E + xt + e] = s;
    }
    __syncthreads();
  }
}

// Pass 2: colsum[b][x] becomes the sum of the blocks above b (exclusive, down b): 32 columns per block.
template <typename Sum>
__global__ void __launch_bounds__(kThreads) block_sums_scan(Sum* __restrict__ colsum, int E, int blocks) {
  exclusive_chains(colsum, StridedBase{1}, size_t(E), E, blocks, int(blockIdx.x) * kChainLanes);
}

// Pass 3, in place: a 128-element x 8K-row tile; lane = 4 adjacent columns, warp = K rows.
template <typename Out, typename Sum, int K, bool VEC>
__global__ void __launch_bounds__(kThreads)
    columns_pass(Out* __restrict__ data, int E, int H, const Sum* __restrict__ colsum) {
  __shared__ Sum tot[kWarps][4][33];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int x0 = blockIdx.x * 128 + lane * 4, y0 = blockIdx.y * kWarps * K + warp * K;
  Sum v[K][4];
#pragma unroll
  for (int r = 0; r < K; ++r) {
    const int y = y0 + r;
    const Out* p = data + size_t(y) * E + x0;
    if (VEC && y < H && x0 < E) {
      __align__(16) Out q[4];
      *reinterpret_cast<uint4*>(q) = *reinterpret_cast<const uint4*>(p);
#pragma unroll
      for (int k = 0; k < 4; ++k) v[r][k] = Sum(q[k]);
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k) v[r][k] = y < H && x0 + k < E ? Sum(p[k]) : Sum(0);
    }
  }
  Sum run[4] = {Sum(0), Sum(0), Sum(0), Sum(0)};
#pragma unroll
  for (int r = 0; r < K; ++r)
#pragma unroll
    for (int k = 0; k < 4; ++k) v[r][k] = run[k] += v[r][k];
#pragma unroll
  for (int k = 0; k < 4; ++k) tot[warp][k][lane] = run[k];
  __syncthreads();
  Sum base[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    base[k] = x0 + k < E ? colsum[size_t(blockIdx.y) * E + x0 + k] : Sum(0);
    for (int w = 0; w < warp; ++w) base[k] += tot[w][k][lane];
  }
#pragma unroll
  for (int r = 0; r < K; ++r) {
    const int y = y0 + r;
    if (y >= H) continue;
    Out* p = data + size_t(y) * E + x0;
    if (VEC && x0 < E) {
      __align__(16) const Out o[4] = {Out(v[r][0] + base[0]), Out(v[r][1] + base[1]), Out(v[r][2] + base[2]),
                                      Out(v[r][3] + base[3])};
      __stcs(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(o));
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (x0 + k < E) p[k] = Out(v[r][k] + base[k]);
    }
  }
}

template <typename In, int CH, int K, bool VEC>
void run_rows_columns(const SatArgs& a) {
  using Out = typename Traits<In>::Out;
  using Sum = typename Traits<In>::Sum;
  const int E = a.width * CH, H = a.height, blocks = int(ceil_div(size_t(H), kWarps * K));
  Scratch s(size_t(blocks) * E * sizeof(Sum), a);
  const cudaStream_t st = cudaStream_t(a.stream);
  Out* out = static_cast<Out*>(a.out);
  phase(a, "sat rows: scan + column block sums");
  rows_pass<In, CH, K, VEC>
      <<<unsigned(blocks), kThreads, 0, st>>>(static_cast<const In*>(a.in), out, E, H, s.as<Sum>());
  launch_check("sat_rows_columns rows_pass", a);
  phase(a, "sat columns: block-sum scan");
  block_sums_scan<Sum><<<ceil_div(size_t(E), kChainLanes), kThreads, 0, st>>>(s.as<Sum>(), E, blocks);
  launch_check("sat_rows_columns block_sums_scan", a);
  phase(a, "sat columns: scan + add");
  columns_pass<Out, Sum, K, VEC>
      <<<dim3(ceil_div(size_t(E), 128), unsigned(blocks)), kThreads, 0, st>>>(out, E, H, s.as<Sum>());
  launch_check("sat_rows_columns columns_pass", a);
}

// Rows per warp: the row pass has one block per 8 K rows, so short images take K = 1 to keep every SM
// busy; tall ones K = 2 or 4 (fewer block sums, more loads in flight per lane). ROWS 0 picks so; 1, 2
// or 4 force K (bench policies: sat_rows_columns_policy_variants).
template <int ROWS, typename In, int CH, bool VEC>
void pick_rows(const SatArgs& a) {
  static_assert(ROWS == 0 || ROWS == 1 || ROWS == 2 || ROWS == 4, "rows per warp: 0 (by the image), 1, 2 or 4");
  int k = ROWS;
  if constexpr (ROWS == 0) {
    // Measured on the H100 (132 SMs) at 4096^2 and 8192^2: 8-bit input is fastest with K = 4 down to
    // half a row-pass block per SM; float (float64 sums: twice the registers) with K = 2 there.
    const size_t sms = size_t(std::max(1, probe().sm_count));
    const size_t blocks4 = ceil_div(size_t(a.height), kWarps * 4),
                 blocks2 = ceil_div(size_t(a.height), kWarps * 2);
    if (std::is_same_v<In, float>)
      k = blocks4 >= 2 * sms ? 4 : 2 * blocks2 >= sms ? 2 : 1;
    else
      k = 2 * blocks4 >= sms ? 4 : 2 * blocks2 >= sms ? 2 : 1;
  }
  (k == 4   ? run_rows_columns<In, CH, 4, VEC>
   : k == 2 ? run_rows_columns<In, CH, 2, VEC>
            : run_rows_columns<In, CH, 1, VEC>)(a);
}

template <int ROWS, typename In, int CH>
void pick_vec(const SatArgs& a) {
  const bool vec = (size_t(a.width) * CH * sizeof(In)) % 16 == 0 && (size_t(a.width) * CH) % 4 == 0 &&
                   reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
  if (vec)
    pick_rows<ROWS, In, CH, true>(a);
  else
    pick_rows<ROWS, In, CH, false>(a);
}

template <int ROWS>
void build(const SatArgs& a) {
  if (a.height > 65535 * kWarps)
    throw Error("sat_rows_columns: image taller than " + std::to_string(65535 * kWarps));
  if (a.dtype == DType::F32) {
    check_args(a, false);
    if (a.channels == 1) return pick_vec<ROWS, float, 1>(a);
    if (a.channels == 2) return pick_vec<ROWS, float, 2>(a);
    if (a.channels == 4) return pick_vec<ROWS, float, 4>(a);
    throw Error("sat_rows_columns: float input with 3 channels (a lane's 4 floats must hold whole pixels)");
  }
  check_args(a, true);
  if (a.channels == 1)
    pick_vec<ROWS, uint8_t, 1>(a);
  else
    pick_vec<ROWS, uint8_t, 4>(a);
}

}  // namespace

Variant sat_rows_columns_variant() {
  return sat_builder_variant(
      "sat_rows_columns", "rows | columns (coalesced column strips, three-phase down the columns)",
      "three-phase scan scheme (per-block scan | block-sum scan | add), columns scanned along rows",
      {DType::U8, DType::RGBA8, DType::F32}, build<0>);
}

std::vector<Variant> sat_rows_columns_policy_variants() {
  const std::vector<DType> types = {DType::U8, DType::RGBA8, DType::F32};
  const char* src = "bench policy: K rows per warp forced (the default picks K by the image)";
  return {sat_builder_variant("sat_rows_columns@rows1", "sat_rows_columns, K = 1 row per warp", src, types, build<1>),
          sat_builder_variant("sat_rows_columns@rows2", "sat_rows_columns, K = 2 rows per warp", src, types, build<2>),
          sat_builder_variant("sat_rows_columns@rows4", "sat_rows_columns, K = 4 rows per warp", src, types, build<4>)};
}

}  // namespace satlab::gpu
