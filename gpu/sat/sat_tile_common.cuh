// The tile layout shared by sat_tiled and sat_lookback_2d: tiles of 128 bytes of 8-bit input (1 or 4
// interleaved channels; sat_tiled's RGBA16 tiles: 128 elements, 256 bytes) by 32 K rows, 256 threads each;
// a thread owns 16 elements of K consecutive rows (one 16-byte load per row, two for RGBA16), 8 threads span
// the tile's width and 32 groups of K rows its height. Row prefixes
// come from shuffles inside the 8-lane groups, column carries between groups from shared memory.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/common/warp.cuh"

namespace satlab::gpu::tile_detail {

constexpr int kThreads = 256;
constexpr int kLanes = 8;                   // threads across a tile row
constexpr int kGroups = kThreads / kLanes;  // groups of K rows down the tile
constexpr int kTileE = kLanes * 16;         // tile width in elements (bytes of input)
constexpr int kPad = 20;                    // 16 values per thread + 4: conflict-free uint4 access

struct Geometry {
  int E, H;      // row length in elements (width * channels), rows
  int nTx, nTy;  // tiles across, down
};

// A 16-byte load, marked evict-first in L1 and L2 where it is the data's last use (the rebuild: so that
// its input does not push out the carries and the stores in flight).
template <bool LAST_USE>
__device__ __forceinline__ uint4 ld16(const uint4* p) {
  return LAST_USE ? __ldcs(p) : __ldg(p);
}

// 16 bytes of row y from element x0, zeros past the row's end and below the image. VEC: rows are 16-byte
// aligned multiples. Otherwise two aligned 16-byte loads and funnel shifts (neighbouring threads share the
// loaded lines in L1), where both loads stay inside the image; byte loads at its very end.
template <bool VEC, bool LAST_USE>
__device__ __forceinline__ uint4 load16(const uint8_t* in, const Geometry& g, int x0, int y) {
  if (y >= g.H || x0 >= g.E) return make_uint4(0, 0, 0, 0);
  const uint8_t* p = in + size_t(y) * size_t(g.E) + size_t(x0);
  if (VEC) return ld16<LAST_USE>(reinterpret_cast<const uint4*>(p));
  const int n = min(16, g.E - x0);
  const uintptr_t base = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(15);
  if (base + 32 <= reinterpret_cast<uintptr_t>(in + size_t(g.E) * size_t(g.H))) {
    const uint4 q0 = ld16<LAST_USE>(reinterpret_cast<const uint4*>(base));
    const uint4 q1 = ld16<LAST_USE>(reinterpret_cast<const uint4*>(base) + 1);
    const uint32_t w[8] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
    const unsigned off = unsigned(reinterpret_cast<uintptr_t>(p) & 15), o4 = off >> 2, sh = 8 * (off & 3);
    uint32_t t[5], r[4];
#pragma unroll
    for (int j = 0; j < 5; ++j) t[j] = o4 == 0 ? w[j] : o4 == 1 ? w[j + 1] : o4 == 2 ? w[j + 2] : w[j + 3];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      r[i] = __funnelshift_r(t[i], t[i + 1], sh);
      const int keep = n - 4 * i;  // bytes of this word still in the row
      if (keep < 4) r[i] &= keep <= 0 ? 0u : (1u << (8 * keep)) - 1u;
    }
    return make_uint4(r[0], r[1], r[2], r[3]);
  }
  uint32_t w[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; ++k) w[k >> 2] |= uint32_t(__ldg(p + k)) << (8 * (k & 3));
  return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __forceinline__ void unpack(const uint4& v, uint32_t (&b)[16]) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int k = 0; k < 16; ++k) b[k] = (w[k >> 2] >> (8 * (k & 3))) & 0xffu;
}

// 16 elements of 16-bit input (sat_tiled's RGBA16 tiles: the same 128 elements by 32 K rows, 256 bytes of
// input per tile row, a thread's 16 elements two 16-byte loads).
struct uint4x2 {
  uint4 a, b;
};
__device__ __forceinline__ void unpack(const uint4x2& v, uint32_t (&b)[16]) {
  const uint32_t w[8] = {v.a.x, v.a.y, v.a.z, v.a.w, v.b.x, v.b.y, v.b.z, v.b.w};
#pragma unroll
  for (int k = 0; k < 16; ++k) b[k] = (w[k >> 1] >> (16 * (k & 1))) & 0xffffu;
}

// A thread's 16 elements of row y from element x0 (zeros past the row's end and below the image): 8-bit
// input through load16; 16-bit input as two 16-byte loads (VEC: rows a multiple of 16 elements, 16-byte
// aligned) or element loads.
template <typename E>
struct Packed {
  using type = uint4;
};
template <>
struct Packed<uint16_t> {
  using type = uint4x2;
};
template <bool VEC, bool LAST_USE>
__device__ __forceinline__ uint4 load_row(const uint8_t* in, const Geometry& g, int x0, int y) {
  return load16<VEC, LAST_USE>(in, g, x0, y);
}
template <bool VEC, bool LAST_USE>
__device__ __forceinline__ uint4x2 load_row(const uint16_t* in, const Geometry& g, int x0, int y) {
  uint4x2 r = {make_uint4(0, 0, 0, 0), make_uint4(0, 0, 0, 0)};
  if (y >= g.H || x0 >= g.E) return r;
  const uint16_t* p = in + size_t(y) * size_t(g.E) + size_t(x0);
  if (VEC) {
    r.a = ld16<LAST_USE>(reinterpret_cast<const uint4*>(p));
    r.b = ld16<LAST_USE>(reinterpret_cast<const uint4*>(p) + 1);
    return r;
  }
  const int n = min(16, g.E - x0);
  uint32_t w[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
  for (int k = 0; k < 16; ++k)
    if (k < n) w[k >> 1] |= uint32_t(__ldg(p + k)) << (16 * (k & 1));
  r.a = make_uint4(w[0], w[1], w[2], w[3]), r.b = make_uint4(w[4], w[5], w[6], w[7]);
  return r;
}

// Per-channel sum over the 8 threads of a tile row (xor butterfly stays inside the 8-lane group).
template <int CH>
__device__ __forceinline__ void row_reduce(uint32_t (&t)[CH]) {
#pragma unroll
  for (int c = 0; c < CH; ++c) t[c] = warp::all_reduce<kLanes>(t[c]);
}

// Per-channel exclusive scan over the W threads of a tile row (8, or 16 / 32 for sat_lookback_2d's float
// tiles; uint32, or float64 for float tiles).
template <int CH, typename T, int W = kLanes>
__device__ __forceinline__ void row_exclusive(T (&t)[CH]) {
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const T own = t[c];
    t[c] = warp::inclusive_scan<W>(t[c]) - own;
  }
}

// A group's contribution to the SAT row below it, for the column scan down the groups: over its K rows, the
// sum of (the row's sum left of the tile, lsum summed over the rows, + the row's prefix inside the tile),
// written to its slice of `start` (srow = &start[grp][lane * kPad]).
template <int CH, int K, typename V>
__device__ __forceinline__ void group_start(const V (&v)[K], const uint32_t (&lsum)[CH], uint32_t* srow) {
  uint32_t cs[16] = {};
#pragma unroll
  for (int r = 0; r < K; ++r) {
    uint32_t b[16];
    unpack(v[r], b);
#pragma unroll
    for (int k = 0; k < 16; ++k) cs[k] += b[k];
  }
  uint32_t run[CH], tot[CH];
#pragma unroll
  for (int c = 0; c < CH; ++c) run[c] = 0;
#pragma unroll
  for (int k = 0; k < 16; ++k) cs[k] = run[k % CH] += cs[k];
#pragma unroll
  for (int c = 0; c < CH; ++c) tot[c] = run[c];
  row_exclusive<CH>(tot);
#pragma unroll
  for (int k = 0; k < 16; k += 4)
    *reinterpret_cast<uint4*>(srow + k) =
        make_uint4(cs[k] + tot[k % CH] + lsum[k % CH], cs[k + 1] + tot[(k + 1) % CH] + lsum[(k + 1) % CH],
                   cs[k + 2] + tot[(k + 2) % CH] + lsum[(k + 2) % CH],
                   cs[k + 3] + tot[(k + 3) % CH] + lsum[(k + 3) % CH]);
}

// Thread t < kTileE: column t of `start` (the group contributions) scanned down the groups, exclusive,
// from top = S(x, row above the tile).
__device__ __forceinline__ void scan_down_groups(uint32_t top, uint32_t (*start)[kLanes * kPad]) {
  const int t = threadIdx.x;
  uint32_t* col = &start[0][(t / 16) * kPad + (t % 16)];
  for (int q = 0; q < kGroups; ++q) {
    const uint32_t s = col[q * kLanes * kPad];
    col[q * kLanes * kPad] = top;
    top += s;
  }
}

// The tile's SAT rows, once `start` holds for each group S(x, row above the group) (the column scan of the
// group contributions): each row adds its left sum, left(y, c), and its prefix inside the tile. Called by
// every thread of the block (a barrier when staged).
template <int CH, int K, bool VEC, typename Left, typename V>
__device__ __forceinline__ void write_rows(const V (&v)[K], Left left, uint32_t (*start)[kLanes * kPad],
                                           uint32_t* __restrict__ out, const Geometry& g, int j, int y0,
                                           int x0, bool staged) {
  const int lane = threadIdx.x & (kLanes - 1), grp = threadIdx.x / kLanes;
  uint32_t acc[16];
#pragma unroll
  for (int k = 0; k < 16; k += 4) {
    const uint4 s = *reinterpret_cast<const uint4*>(&start[grp][lane * kPad + k]);
    acc[k] = s.x, acc[k + 1] = s.y, acc[k + 2] = s.z, acc[k + 3] = s.w;
  }
  if (staged) __syncthreads();  // `start` becomes the store staging buffer
#pragma unroll
  for (int r = 0; r < K; ++r) {
    const int y = y0 + r;
    uint32_t b[16], t[CH] = {};
    unpack(v[r], b);
#pragma unroll
    for (int k = 0; k < 16; ++k) t[k % CH] += b[k];
    row_exclusive<CH>(t);
    if (y < g.H)
#pragma unroll
      for (int c = 0; c < CH; ++c) t[c] += left(y, c);
#pragma unroll
    for (int k = 0; k < 16; ++k) acc[k] += (t[k % CH] += b[k]);
    if (staged) {
      // Through this group's slice of `start`: each store instruction then writes 128 contiguous bytes
      // per row instead of 16 bytes every 64 (rows not 16-byte aligned: 32 contiguous bytes, not 4 every
      // 64).
      __syncwarp();
#pragma unroll
      for (int k = 0; k < 16; k += 4)
        *reinterpret_cast<uint4*>(&start[grp][lane * kPad + k]) =
            make_uint4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]);
      __syncwarp();
      if (y >= g.H) continue;
      if (VEC) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int chunk = 8 * q + lane, owner = chunk / 4;
          if (j * kTileE + owner * 16 >= g.E) continue;
          const uint4 s = *reinterpret_cast<const uint4*>(&start[grp][owner * kPad + (chunk % 4) * 4]);
          __stcs(reinterpret_cast<uint4*>(out + size_t(y) * g.E + j * kTileE + chunk * 4), s);
        }
      } else {
#pragma unroll
        for (int q = 0; q < 16; ++q) {
          const int e = kLanes * q + lane, x = j * kTileE + e;
          if (x < g.E) __stcs(out + size_t(y) * g.E + x, start[grp][(e / 16) * kPad + e % 16]);
        }
      }
      continue;
    }
    if (y >= g.H || x0 >= g.E) continue;
    uint32_t* o = out + size_t(y) * g.E + x0;
    if (VEC) {
#pragma unroll
      for (int k = 0; k < 16; k += 4)
        __stcs(reinterpret_cast<uint4*>(o + k), make_uint4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]));
    } else {
      const int n = min(16, g.E - x0);
#pragma unroll
      for (int k = 0; k < 16; ++k)
        if (k < n) o[k] = acc[k];
    }
  }
}

}  // namespace satlab::gpu::tile_detail
