// Single-pass SAT: every input element read once, every output element written once. A block owns a band
// of 32 rows and walks it left to right in tiles of 128 elements:
//   - inside the band all is local: the tile's column sums scanned down its rows (shared memory), then
//     row scans (shuffles) plus each row's carry from the tiles on its left (registers) give the
//     band-local SAT D(x, y), the sum over the band's rows down to y and the columns up to x;
//   - what lies above the band, S(x, band top - 1), comes from a decoupled look-back down the bands
//     (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016, with a
//     vector of 128 column sums per tile instead of one value): each tile publishes its column totals
//     (aggregate A) as soon as it has scanned them, then the column sums of everything down to its last
//     row (inclusive prefix P). A look-back warp reads the flags of 32 bands above at once and adds up
//     their vectors to the nearest P, while the other 8 warps compute D; a prefix of those column sums
//     across the tile plus a running sum from the tiles on the left gives S(x, band top - 1).
// Bands are numbered in start order (an atomic counter), so every band a tile waits for is running or done.
// 8-bit input (1 or 4 channels) -> uint32 with wrap-around; float (1, 2 or 4 channels) keeps every sum,
// the published vectors included, in float64 and rounds each output once.
// Bytes: 1 + 4 per u8 element, 4 + 4 per float; plus per tile the vectors (2 x 512 B written, u8; 1 KiB
// float) and the look-back's reads of them, mostly from L2.
#include <algorithm>
#include <cstdlib>
#include <type_traits>

#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_common.cuh"

namespace satlab::gpu {
namespace {

using namespace sat_detail;

constexpr int kThreads = 256;             // compute threads; one more warp looks back
constexpr int kBlock = kThreads + 32;
constexpr int kSubW = 128;                // sub-tile width in elements; the look-back warp holds 4 per lane
constexpr unsigned kFlagA = 1, kFlagP = 2;

template <typename In>
struct Traits;
template <>
struct Traits<uint8_t> {
  using Acc = uint32_t;  // sums and outputs
  using Out = uint32_t;
  static constexpr int V = 16, K = 1, M = 2;  // elements per 16-byte load, rows per thread, sub-tiles per tile
  static constexpr int kMinBlocks = 2;         // blocks per SM the registers must allow
};
template <>
struct Traits<float> {
  using Acc = double;
  using Out = float;
  static constexpr int V = 4, K = 4, M = 2;
  static constexpr int kMinBlocks = 1;
};

template <typename In>
struct Shape {
  static constexpr int V = Traits<In>::V, K = Traits<In>::K, M = Traits<In>::M;
  static constexpr int kTileW = M * kSubW;             // one look-back per tile
  static constexpr int kLanes = kSubW / V;             // threads across a sub-tile row
  static constexpr int kGroups = kThreads / kLanes;    // groups of K rows down the band
  static constexpr int kBandH = kGroups * K;           // 32 rows
  static constexpr int kPadV = V + 16 / int(sizeof(typename Traits<In>::Acc));  // conflict-free 16-byte access
};

// 16 bytes of row y from element x0, zeros past the image.
template <typename In, bool VEC>
__device__ __forceinline__ uint4 load16(const In* __restrict__ in, int E, int H, int x0, int y) {
  if (y >= H || x0 >= E) return make_uint4(0, 0, 0, 0);
  const In* p = in + size_t(y) * size_t(E) + size_t(x0);
  if (VEC) return __ldcs(reinterpret_cast<const uint4*>(p));
  constexpr int V = Traits<In>::V;
  In v[V];
#pragma unroll
  for (int k = 0; k < V; ++k) v[k] = x0 + k < E ? __ldg(p + k) : In(0);
  uint4 q;
  static_assert(sizeof(v) == sizeof(q));
  memcpy(&q, v, sizeof(q));
  return q;
}

template <typename In>
__device__ __forceinline__ void unpack(const uint4& q, typename Traits<In>::Acc (&v)[Traits<In>::V]) {
  if constexpr (std::is_same_v<In, uint8_t>) {
    const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int k = 0; k < 16; ++k) v[k] = (w[k >> 2] >> (8 * (k & 3))) & 0xffu;
  } else {
    v[0] = __uint_as_float(q.x), v[1] = __uint_as_float(q.y), v[2] = __uint_as_float(q.z),
    v[3] = __uint_as_float(q.w);
  }
}

// Four consecutive Acc values (16 or 32 bytes) through L2, in either direction.
__device__ __forceinline__ void store4(uint32_t* p, const uint32_t (&v)[4]) {
  __stcg(reinterpret_cast<uint4*>(p), make_uint4(v[0], v[1], v[2], v[3]));
}
__device__ __forceinline__ void store4(double* p, const double (&v)[4]) {
  __stcg(reinterpret_cast<double2*>(p), make_double2(v[0], v[1]));
  __stcg(reinterpret_cast<double2*>(p) + 1, make_double2(v[2], v[3]));
}
__device__ __forceinline__ void add4(const uint32_t* p, uint32_t (&v)[4]) {
  const uint4 q = __ldcg(reinterpret_cast<const uint4*>(p));
  v[0] += q.x, v[1] += q.y, v[2] += q.z, v[3] += q.w;
}
__device__ __forceinline__ void add4(const double* p, double (&v)[4]) {
  const double2 a = __ldcg(reinterpret_cast<const double2*>(p)), b = __ldcg(reinterpret_cast<const double2*>(p) + 1);
  v[0] += a.x, v[1] += a.y, v[2] += b.x, v[3] += b.y;
}

// All 288 threads; the two roles reach it from different code, so a named barrier, not __syncthreads.
__device__ __forceinline__ void block_bar() { asm volatile("bar.sync 1, %0;" ::"r"(kBlock) : "memory"); }

struct Status {
  unsigned* flags;  // [tile][band]: 0, kFlagA or kFlagP
  void* agg;        // [band][Es] column totals of each tile
  void* inc;        // [band][Es] column sums down to the band's last row
  unsigned* counter;
  int nBands, Es;
};

// Per-channel inclusive scan across the `W` lanes of a segment; returns the segment's total.
template <int CH, int W, typename T>
__device__ __forceinline__ void segment_scan(T (&t)[CH], T (&total)[CH]) {
  const int lane = threadIdx.x & (W - 1);
#pragma unroll
  for (int c = 0; c < CH; ++c) {
#pragma unroll
    for (int d = 1; d < W; d <<= 1) {
      const T n = __shfl_up_sync(0xffffffffu, t[c], d, W);
      if (lane >= d) t[c] += n;
    }
    total[c] = __shfl_sync(0xffffffffu, t[c], W - 1, W);
  }
}

template <typename In, int CH, bool VEC>
__global__ void __launch_bounds__(kBlock, Traits<In>::kMinBlocks) single_pass(const In* __restrict__ in, typename Traits<In>::Out* __restrict__ out,
                                                      int E, int H, int nTx, Status st) {
  using Acc = typename Traits<In>::Acc;
  using S = Shape<In>;
  constexpr int V = S::V, K = S::K, M = S::M, kLanes = S::kLanes, kGroups = S::kGroups, kPadV = S::kPadV;
  constexpr int TW = S::kTileW;
  __shared__ __align__(16) Acc part[kGroups][kLanes * kPadV];  // column partials; u8: store staging
  __shared__ __align__(16) Acc coltot[TW];
  __shared__ __align__(16) Acc top[TW];
  __shared__ __align__(16) Acc red[kThreads / 32][TW];  // look-back: partial sums of the window's vectors
  __shared__ int2 window;  // look-back: nearest band, last index into the window (-1 - it when that one is P)
  __shared__ int band_s;
  if (threadIdx.x == 0) band_s = int(atomicAdd(st.counter, 1u));
  __syncthreads();
  const int band = band_s, yb = band * S::kBandH;
  Acc* agg = static_cast<Acc*>(st.agg);
  Acc* inc = static_cast<Acc*>(st.inc);

  if (threadIdx.x >= kThreads) {
    // The look-back warp: lane ln holds columns m 128 + 4 ln .. + 3 of the tile, m < M.
    const int ln = threadIdx.x - kThreads;
    Acc run_top[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) run_top[c] = Acc(0);
    for (int t = 0; t < nTx; ++t) {
      for (int m = 0; m < M; ++m) {
        block_bar();  // A: partials written
        block_bar();  // B: coltot ready
      }
      const size_t vo = size_t(t) * TW + 4 * ln;
      unsigned* fl = st.flags + size_t(t) * st.nBands;
      Acc tot[M][4], ca[M][4];
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int j = 0; j < 4; ++j) tot[m][j] = coltot[m * kSubW + 4 * ln + j], ca[m][j] = Acc(0);
      if (band > 0) {
#pragma unroll
        for (int m = 0; m < M; ++m) store4(agg + size_t(band) * st.Es + vo + m * kSubW, tot[m]);
        __threadfence();
        __syncwarp();
        if (ln == 0) *reinterpret_cast<volatile unsigned*>(fl + band) = kFlagA;
        for (int base = band - 1;; base -= 32) {
          const int b = base - ln;
          unsigned f, p;
          for (unsigned delay = 32;; delay = delay < 128 ? 2 * delay : delay) {
            f = b >= 0 ? *reinterpret_cast<const volatile unsigned*>(fl + b) : kFlagP;
            p = __ballot_sync(0xffffffffu, f == kFlagP);
            const unsigned needed = p ? ((p & (0u - p)) << 1) - 1 : 0xffffffffu;  // lanes up to the nearest P
            if (!(__ballot_sync(0xffffffffu, f == 0) & needed)) break;
            __nanosleep(delay);
          }
          __threadfence();  // the flags were read before the vectors they publish
          if (ln == 0) window = make_int2(base, p ? -(__ffs(p) - 1) - 1 : 31);
          block_bar();  // L1: window set; the compute threads add up its vectors
          block_bar();  // L2: their partial sums are in `red`
#pragma unroll
          for (int w = 0; w < kThreads / 32; ++w)
#pragma unroll
            for (int m = 0; m < M; ++m)
#pragma unroll
              for (int j = 0; j < 4; ++j) ca[m][j] += red[w][m * kSubW + 4 * ln + j];
          if (p) break;
        }
      }
      // S(x, band top - 1) = the sums above the band of every column up to x (its channel's).
#pragma unroll
      for (int m = 0; m < M; ++m) {
        Acc lane_run[CH], lane_tot[CH], warp_tot[CH], pre[4];
#pragma unroll
        for (int c = 0; c < CH; ++c) lane_run[c] = Acc(0);
#pragma unroll
        for (int j = 0; j < 4; ++j) pre[j] = lane_run[j % CH] += ca[m][j];
#pragma unroll
        for (int c = 0; c < CH; ++c) lane_tot[c] = lane_run[c];
        segment_scan<CH, 32>(lane_run, warp_tot);
#pragma unroll
        for (int j = 0; j < 4; ++j)
          top[m * kSubW + 4 * ln + j] = pre[j] + (lane_run[j % CH] - lane_tot[j % CH]) + run_top[j % CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) run_top[c] += warp_tot[c];
      }
      block_bar();  // C: top ready; the tile is written while its inclusive sums are published
#pragma unroll
      for (int m = 0; m < M; ++m) {
        Acc incl[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) incl[j] = ca[m][j] + tot[m][j];
        store4(inc + size_t(band) * st.Es + vo + m * kSubW, incl);
      }
      __threadfence();
      __syncwarp();
      if (ln == 0) *reinterpret_cast<volatile unsigned*>(fl + band) = kFlagP;
    }
    return;
  }

  const int l = threadIdx.x % kLanes, g = threadIdx.x / kLanes, y0 = yb + g * K;
  Acc carry[K][CH];  // D at the last element of each channel left of the sub-tile, per row
#pragma unroll
  for (int r = 0; r < K; ++r)
#pragma unroll
    for (int c = 0; c < CH; ++c) carry[r][c] = Acc(0);
  uint4 raw[M][K];
#pragma unroll
  for (int m = 0; m < M; ++m)
#pragma unroll
    for (int r = 0; r < K; ++r) raw[m][r] = load16<In, VEC>(in, E, H, m * kSubW + l * V, y0 + r);
  for (int t = 0; t < nTx; ++t) {
    const int xt = t * TW;
    Acc v[M][K][V];
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
      for (int r = 0; r < K; ++r) unpack<In>(raw[m][r], v[m][r]);
    if (t + 1 < nTx)  // the next tile's loads fly during this one's scans, look-back and stores
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int r = 0; r < K; ++r) raw[m][r] = load16<In, VEC>(in, E, H, xt + TW + m * kSubW + l * V, y0 + r);
#pragma unroll
    for (int m = 0; m < M; ++m) {
#pragma unroll
      for (int k = 0; k < V; k += 4) {
        Acc q[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          q[u] = v[m][0][k + u];
#pragma unroll
          for (int r = 1; r < K; ++r) q[u] += v[m][r][k + u];
        }
        Acc* p = &part[g][l * kPadV + k];
        if constexpr (std::is_same_v<Acc, uint32_t>)
          *reinterpret_cast<uint4*>(p) = make_uint4(q[0], q[1], q[2], q[3]);
        else
          reinterpret_cast<double2*>(p)[0] = make_double2(q[0], q[1]), reinterpret_cast<double2*>(p)[1] = make_double2(q[2], q[3]);
      }
      block_bar();  // A
      if (threadIdx.x < kSubW) {
        // Exclusive scan of column c down the groups; its total for the look-back.
        const int c = threadIdx.x, idx = (c / V) * kPadV + c % V;
        Acc s[kGroups];
#pragma unroll
        for (int q = 0; q < kGroups; ++q) s[q] = part[q][idx];
        Acc run = Acc(0);
#pragma unroll
        for (int q = 0; q < kGroups; ++q) {
          part[q][idx] = run;
          run += s[q];
        }
        coltot[m * kSubW + c] = run;
      }
      block_bar();  // B
      // Column prefix within the band (C), then its prefix along the row (D).
      Acc cp[V];
#pragma unroll
      for (int k = 0; k < V; ++k) cp[k] = part[g][l * kPadV + k];
#pragma unroll
      for (int r = 0; r < K; ++r) {
        Acc run[CH], tot[CH], own[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) run[c] = Acc(0);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          cp[k] += v[m][r][k];
          v[m][r][k] = run[k % CH] += cp[k];
        }
#pragma unroll
        for (int c = 0; c < CH; ++c) own[c] = run[c];
        segment_scan<CH, kLanes>(run, tot);
#pragma unroll
        for (int k = 0; k < V; ++k) v[m][r][k] += run[k % CH] - own[k % CH] + carry[r][k % CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) carry[r][c] += tot[c];
      }
    }
    // The look-back window's vectors (up to 32 bands), 4 M per thread, all loads in flight at once.
    for (int more = band > 0; more;) {
      block_bar();  // L1
      const int2 wnd = window;
      const int last = wnd.y < 0 ? -1 - wnd.y : wnd.y, q = threadIdx.x & 31, s0 = threadIdx.x >> 5;
      Acc sum[M][4];
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int j = 0; j < 4; ++j) sum[m][j] = Acc(0);
      const size_t vo = size_t(t) * TW + 4 * q;
#pragma unroll
      for (int u = 0; u < 32; u += kThreads / 32) {
        const int s = s0 + u, bb = wnd.x - s;
        if (s <= last && bb >= 0) {
          const Acc* src = (s == last && wnd.y < 0 ? inc : agg) + size_t(bb) * st.Es + vo;
#pragma unroll
          for (int m = 0; m < M; ++m) add4(src + m * kSubW, sum[m]);
        }
      }
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int j = 0; j < 4; ++j) red[s0][m * kSubW + 4 * q + j] = sum[m][j];
      more = wnd.y >= 0;
      block_bar();  // L2
    }
    block_bar();  // C
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const int x0 = xt + m * kSubW + l * V;
      Acc tp[V];
#pragma unroll
      for (int k = 0; k < V; ++k) tp[k] = top[m * kSubW + l * V + k];
      if constexpr (VEC && kLanes == 8) {
        // u8: through this warp's rows of `part`, so that each store instruction writes 512 contiguous
        // bytes of one row instead of 16 bytes every 64.
        __syncwarp();
#pragma unroll
        for (int k = 0; k < V; k += 4)
          *reinterpret_cast<uint4*>(&part[g][l * kPadV + k]) = make_uint4(
              v[m][0][k] + tp[k], v[m][0][k + 1] + tp[k + 1], v[m][0][k + 2] + tp[k + 2], v[m][0][k + 3] + tp[k + 3]);
        __syncwarp();
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
        for (int q = 0; q < 32 / kLanes; ++q) {
          const int gg = warp * (32 / kLanes) + q, y = yb + gg, xe = xt + m * kSubW + lane * 4;
          if (y >= H || xe >= E) continue;
          const uint4 s = *reinterpret_cast<const uint4*>(&part[gg][(lane / 4) * kPadV + (lane % 4) * 4]);
          __stcs(reinterpret_cast<uint4*>(out + size_t(y) * E + xe), s);
        }
        __syncwarp();  // `part` is rewritten next
      } else {
#pragma unroll
        for (int r = 0; r < K; ++r) {
          const int y = y0 + r;
          if (y >= H || x0 >= E) continue;
          auto* o = out + size_t(y) * E + x0;
          if constexpr (VEC && std::is_same_v<In, float>) {
            __stcs(reinterpret_cast<float4*>(o), make_float4(float(v[m][r][0] + tp[0]), float(v[m][r][1] + tp[1]),
                                                             float(v[m][r][2] + tp[2]), float(v[m][r][3] + tp[3])));
          } else {
#pragma unroll
            for (int k = 0; k < V; ++k)
              if (x0 + k < E) o[k] = typename Traits<In>::Out(v[m][r][k] + tp[k]);
          }
        }
      }
    }
  }
}

template <typename In, int CH>
void run_single_pass(const SatArgs& a) {
  using Acc = typename Traits<In>::Acc;
  const int E = a.width * CH, H = a.height;
  const int nTx = int(ceil_div(size_t(E), Shape<In>::kTileW)), nBands = int(ceil_div(size_t(H), Shape<In>::kBandH));
  const int Es = nTx * Shape<In>::kTileW;
  const size_t flag_bytes = (size_t(nTx) * nBands + 1) * sizeof(unsigned);
  const size_t vec_off = (flag_bytes + 255) / 256 * 256, vec_bytes = size_t(nBands) * Es * sizeof(Acc);
  Scratch s(vec_off + 2 * vec_bytes, a);
  auto* base = s.as<char>();
  Status stat{reinterpret_cast<unsigned*>(base) + 1, base + vec_off, base + vec_off + vec_bytes,
              reinterpret_cast<unsigned*>(base), nBands, Es};
  cudaStream_t stream = cudaStream_t(a.stream);
  phase(a, "sat single pass: status reset");
  cuda_check(cudaMemsetAsync(base, 0, flag_bytes, stream), "cudaMemsetAsync of the look-back flags", a);
  phase(a, "sat single pass: bands");
  const auto* in = static_cast<const In*>(a.in);
  auto* out = static_cast<typename Traits<In>::Out*>(a.out);
  const bool vec = E % Traits<In>::V == 0 && reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
  if (vec)
    single_pass<In, CH, true><<<nBands, kBlock, 0, stream>>>(in, out, E, H, nTx, stat);
  else
    single_pass<In, CH, false><<<nBands, kBlock, 0, stream>>>(in, out, E, H, nTx, stat);
  launch_check("sat_single_pass", a);
}

}  // namespace

void sat_single_pass(const SatArgs& a) {
  check_args(a, a.dtype != DType::F32);
  if (a.dtype == DType::U8)
    run_single_pass<uint8_t, 1>(a);
  else if (a.dtype == DType::RGBA8)
    run_single_pass<uint8_t, 4>(a);
  else if (a.channels == 1)
    run_single_pass<float, 1>(a);
  else if (a.channels == 2)
    run_single_pass<float, 2>(a);
  else if (a.channels == 4)
    run_single_pass<float, 4>(a);
  else
    throw Error("sat_single_pass takes float with 1, 2 or 4 channels, not " + std::to_string(a.channels));
}

Variant sat_single_pass_variant() {
  Variant v;
  v.name = "sat_single_pass";
  v.family = Family::Sat;
  v.label = "single pass (bands, column look-back)";
  v.source = "decoupled look-back (Merrill & Garland 2016) down bands of tiles";
  v.dtypes = {DType::U8, DType::RGBA8, DType::F32};
  v.bytes = sat_min_bytes;
  v.refuses = [](size_t, DType t) {
    return t == DType::U8 || t == DType::RGBA8 || t == DType::F32 ? std::string() : std::string("8-bit or float input");
  };
  v.sat = sat_single_pass;
  return v;
}

}  // namespace satlab::gpu
