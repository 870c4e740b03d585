// Single-pass SAT: every input element read once, every output element written once. A block owns a band
// of rows (32; 64 for large 8-bit images) and walks it left to right in tiles of one element column per
// thread (256 or 512), made of sub-tiles 128 elements wide:
//   - inside the band all is local: each sub-tile's column sums scanned down its rows (shared memory),
//     then row scans (shuffles) plus each row's carry from the tiles on its left (registers) give the
//     band-local SAT D(x, y), the sum over the band's rows down to y and the columns up to x;
//   - what lies above the band, S(x, band top - 1), comes from a decoupled look-back down the bands
//     (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016), one per
//     column: for each column of the tile a thread publishes the column's total over the band
//     (aggregate A), reads the words of that column in the bands above, a window at a time, adds them up
//     to the nearest inclusive one (P) and publishes its own P, the column's sum down to the band's last
//     row. Flag and value share one 64-bit word, so no fence orders them and columns need not agree on
//     where they stop. A prefix of those sums across the tile, plus a running sum of the tiles on the
//     left, gives S(x, band top - 1).
// Bands are numbered in start order (an atomic counter), so every band a column waits for is running or
// done. 8-bit input (1 or 4 channels) -> uint32 with wrap-around; float (1, 2 or 4 channels) keeps every
// sum in float64 (published words keep 36 mantissa bits, the rest is the epoch and flag: 2^-36 relative)
// and rounds each output once.
// Bytes: 1 + 4 per u8 element, 4 + 4 per float; plus 8 B per column per band for the words (1/4 B per
// element, tagged with the launch's epoch instead of zeroed before it), written once and read back
// through L2 by the bands below.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>

#include "gpu/common/warp.cuh"
#include "gpu/device.hpp"
#include "gpu/sat/sat.hpp"
#include "gpu/sat/sat_common.cuh"
#include "gpu/sat/sat_lookback.cuh"

namespace satlab::gpu {
namespace {

using namespace sat_detail;

constexpr int kSubW = 128;  // sub-tile width in elements

template <typename In>
struct Traits;
template <>
struct Traits<uint8_t> {
  using Acc = uint32_t;  // sums and outputs
  using Out = uint32_t;
  static constexpr int V = 16;  // elements per 16-byte load
};
template <>
struct Traits<float> {
  using Acc = double;
  using Out = float;
  static constexpr int V = 4;
};

// Rows per thread K, sub-tiles per tile M, threads (one per tile column), blocks per SM the registers
// must allow. TALL: 64-row bands of 512-column tiles (u8 only): half the bands and half the tiles per band.
template <typename In, bool TALL>
struct Config;
template <>
struct Config<uint8_t, false> {
  static constexpr int K = 1, M = 2, kThreads = 256, kMinBlocks = 2;
};
template <>
struct Config<uint8_t, true> {
  static constexpr int K = 1, M = 4, kThreads = 512, kMinBlocks = 1;
};
template <>
struct Config<float, false> {
  static constexpr int K = 4, M = 2, kThreads = 256, kMinBlocks = 1;
};

template <typename In, bool TALL>
struct Shape {
  using C = Config<In, TALL>;
  static constexpr int V = Traits<In>::V, K = C::K, M = C::M, kThreads = C::kThreads;
  static constexpr int kTileW = M * kSubW;           // one column per thread in the look-back
  static constexpr int kLanes = kSubW / V;           // threads across a sub-tile row
  static constexpr int kGroups = kThreads / kLanes;  // groups of K rows down the band
  static constexpr int kBandH = kGroups * K;         // rows
  static constexpr int kPadV =
      V + 16 / int(sizeof(typename Traits<In>::Acc));  // conflict-free 16-byte access
  static_assert(kTileW == kThreads, "the look-back gives each thread one column");
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

// Per-channel inclusive scan across the `W` lanes of a segment; returns the segment's total.
template <int CH, int W, typename T>
__device__ __forceinline__ void segment_scan(T (&t)[CH], T (&total)[CH]) {
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    t[c] = warp::inclusive_scan<W>(t[c]);
    total[c] = warp::broadcast<W>(t[c], W - 1);
  }
}

struct Status {
  unsigned long long* words;  // [band][Es]: each column's aggregate, then inclusive sum, with its flag
  unsigned* counter;          // band tickets; the last band's block sets it back to 0 for the next launch
  int Es;
  int first_window, window;  // words read at once: first, and after a window without P
  unsigned epoch;            // this launch's (sat_lookback.cuh)
};

template <typename In, bool TALL, int CH, bool VEC>
__global__ void __launch_bounds__(Config<In, TALL>::kThreads, Config<In, TALL>::kMinBlocks)
    single_pass(const In* __restrict__ in, typename Traits<In>::Out* __restrict__ out, int E, int H, int nTx,
                Status st) {
  using Acc = typename Traits<In>::Acc;
  using S = Shape<In, TALL>;
  constexpr int V = S::V, K = S::K, M = S::M, kLanes = S::kLanes, kGroups = S::kGroups, kPadV = S::kPadV;
  constexpr int TW = S::kTileW, kThreads = S::kThreads;
  __shared__ __align__(16) Acc part[kGroups][kLanes * kPadV];  // column partials; u8: store staging
  __shared__ __align__(16) Acc coltot[TW];
  __shared__ __align__(16) Acc top[TW];
  __shared__ Acc warp_sum[kThreads / 32][CH];
  __shared__ int band_s;
  if (threadIdx.x == 0) {
    band_s = int(atomicAdd(st.counter, 1u));
    if (band_s == int(gridDim.x) - 1) atomicExch(st.counter, 0u);  // every other ticket is taken
  }
  __syncthreads();
  const int band = band_s, yb = band * S::kBandH;
  const size_t Es = size_t(st.Es);

  const int l = threadIdx.x % kLanes, g = threadIdx.x / kLanes, y0 = yb + g * K;
  Acc carry[K][CH];  // D at the last element of each channel left of the sub-tile, per row
  Acc run_top[CH];   // S(last element of each channel left of the tile, band top - 1)
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    run_top[c] = Acc(0);
#pragma unroll
    for (int r = 0; r < K; ++r) carry[r][c] = Acc(0);
  }
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
      for (int r = 0; r < K; ++r) unpack16<In>(raw[m][r], v[m][r]);
    if (t + 1 < nTx)  // the next tile's loads fly during this one's scans, look-back and stores
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int r = 0; r < K; ++r)
          raw[m][r] = load16<In, VEC>(in, E, H, xt + TW + m * kSubW + l * V, y0 + r);
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
          reinterpret_cast<double2*>(p)[0] = make_double2(q[0], q[1]),
          reinterpret_cast<double2*>(p)[1] = make_double2(q[2], q[3]);
      }
      __syncthreads();
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
      __syncthreads();
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
    {
      // Column c of the tile: its sum over the bands above (look-back), then S(c, band top - 1).
      const int c = threadIdx.x, lane = c & 31, warp = c >> 5;
      unsigned long long* col = st.words + size_t(xt) + c;
      const Acc tot = coltot[c];
      const lookback::EpochWord<Acc> word{st.epoch};
      Acc above = Acc(0);
      if (band > 0) {
        lookback::publish_aggregate(col + size_t(band) * Es, tot, word);
        above = lookback::look_back_chain<kMaxWindow>(col, Es, band, st.first_window, st.window, word);
      }
      lookback::publish_inclusive(col + size_t(band) * Es, Acc(above + tot), word);
      // Inclusive prefix of `above` along the tile, per channel (lanes CH apart share one).
      above = warp::inclusive_scan<32, CH>(above);
      if (lane >= 32 - CH) warp_sum[warp][lane % CH] = above;
      __syncthreads();
      Acc before = run_top[c % CH];
      for (int w = 0; w < warp; ++w) before += warp_sum[w][c % CH];
      top[c] = before + above;
#pragma unroll
      for (int w = 0; w < kThreads / 32; ++w)
#pragma unroll
        for (int ch = 0; ch < CH; ++ch) run_top[ch] += warp_sum[w][ch];
      __syncthreads();
    }
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
          *reinterpret_cast<uint4*>(&part[g][l * kPadV + k]) =
              make_uint4(v[m][0][k] + tp[k], v[m][0][k + 1] + tp[k + 1], v[m][0][k + 2] + tp[k + 2],
                         v[m][0][k + 3] + tp[k + 3]);
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
            __stcs(reinterpret_cast<float4*>(o),
                   make_float4(float(v[m][r][0] + tp[0]), float(v[m][r][1] + tp[1]),
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

// Words of a column the look-back reads at once: first, and after a window without P (1, 2, 4, 8 and 16
// measured alike).
constexpr int kFirstWindow = 8, kNextWindow = 8;
static_assert(kFirstWindow <= kMaxWindow && kNextWindow <= kMaxWindow, "windows held in registers");

template <typename In, bool TALL, int CH>
void run_single_pass(const SatArgs& a) {
  using S = Shape<In, TALL>;
  const int E = a.width * CH, H = a.height;
  const int nTx = int(ceil_div(size_t(E), S::kTileW)), nBands = int(ceil_div(size_t(H), S::kBandH));
  const int Es = nTx * S::kTileW;
  phase(a, "sat single pass: bands");
  const LookbackWords lw = lookback_words(size_t(nBands) * Es, a);
  Status st{lw.words, lw.counter, Es, kFirstWindow, kNextWindow, lw.epoch};
  cudaStream_t stream = cudaStream_t(a.stream);
  const auto* in = static_cast<const In*>(a.in);
  auto* out = static_cast<typename Traits<In>::Out*>(a.out);
  const bool vec = E % Traits<In>::V == 0 && reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
  if (vec)
    single_pass<In, TALL, CH, true><<<nBands, S::kThreads, 0, stream>>>(in, out, E, H, nTx, st);
  else
    single_pass<In, TALL, CH, false><<<nBands, S::kThreads, 0, stream>>>(in, out, E, H, nTx, st);
  launch_check("sat_single_pass", a);
}

// 8-bit input: BANDS-row bands. 0 (the default): 64-row bands where they still give about one block per
// SM, else 32-row ones; 32 or 64 force them (bench policies, `satlab bench sat --policies`).
template <int BANDS, int CH>
void run_u8(const SatArgs& a) {
  static_assert(BANDS == 0 || BANDS == 32 || BANDS == 64, "8-bit bands: 0 (by the image), 32 or 64 rows");
  const size_t tall_bands = ceil_div(size_t(a.height), Shape<uint8_t, true>::kBandH);
  const bool tall = BANDS ? BANDS == 64 : tall_bands * 4 >= size_t(3 * std::max(1, probe().sm_count));
  if (tall)
    run_single_pass<uint8_t, true, CH>(a);
  else
    run_single_pass<uint8_t, false, CH>(a);
}

// A bench policy: 8-bit input only, its bands forced.
template <int BANDS>
void run_u8_bands(const SatArgs& a) {
  check_args(a, true);
  if (a.dtype == DType::U8)
    run_u8<BANDS, 1>(a);
  else
    run_u8<BANDS, 4>(a);
}

}  // namespace

void sat_single_pass(const SatArgs& a) {
  check_args(a, a.dtype != DType::F32);
  if (a.dtype == DType::U8)
    run_u8<0, 1>(a);
  else if (a.dtype == DType::RGBA8)
    run_u8<0, 4>(a);
  else if (a.channels == 1)
    run_single_pass<float, false, 1>(a);
  else if (a.channels == 2)
    run_single_pass<float, false, 2>(a);
  else if (a.channels == 4)
    run_single_pass<float, false, 4>(a);
  else
    throw Error("sat_single_pass takes float with 1, 2 or 4 channels, not " + std::to_string(a.channels));
}

Variant sat_single_pass_variant() {
  return sat_builder_variant("sat_single_pass", "single pass (bands, column look-back)",
                             "decoupled look-back (Merrill & Garland 2016) down bands of tiles",
                             {DType::U8, DType::RGBA8, DType::F32}, sat_single_pass);
}

std::vector<Variant> sat_single_pass_policy_variants() {
  const char* src = "bench policy: 8-bit bands forced (the default picks them by the image)";
  return {sat_builder_variant("sat_single_pass@bands32", "sat_single_pass, 32-row bands at every size", src,
                              {DType::U8, DType::RGBA8}, run_u8_bands<32>),
          sat_builder_variant("sat_single_pass@bands64", "sat_single_pass, 64-row bands at every size", src,
                              {DType::U8, DType::RGBA8}, run_u8_bands<64>)};
}

}  // namespace satlab::gpu
