// Device-level scan of any length, composed from a block-level scan (gpu/scan/block_scan.cuh), in a
// "segmented by rows" form: each of `rows` rows of `width` elements (row pitches in elements) is
// scanned independently, so a 1D scan is one row and a SAT's row pass is the image. Rows are split
// into tiles of BLOCK_THREADS * ITEMS_PER_THREAD elements, one block per tile.
//
//   scan_rows<Alg, B, IPT>(in, in_pitch, out, out_pitch, width, rows, inclusive, scheme, stream)
//   scan_1d<Alg, B, IPT>(in, out, n, inclusive, scheme, stream)
//
// Alg is any template <typename T, int B, int IPT> block scan (e.g. ShuffleBlockScan); InT (the input
// element) converts to T (the sum type), so uint8 rows can produce uint32 sums. in and out must not
// overlap.
// Schemes, for a row of more than one tile:
//   ScanThenAdd    1. scan every tile, write it and the tile's total   (reads n, writes n)
//                  2. exclusive scan of the tile totals of each row, recursively with this driver
//                  3. add each tile's prefix to its elements          (reads n, writes n): 4n bytes
//   ReduceThenScan 1. reduce every tile to its total                  (reads n)
//                  2. as above
//                  3. scan every tile again, starting from its prefix (reads n, writes n): 3n bytes
// A row that fits in one tile is finished by step 1 (2n bytes). Tile totals and prefixes come from the
// device's stream-ordered pool (Scratch). Every launch is checked.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "gpu/check.hpp"
#include "gpu/common/warp.cuh"
#include "gpu/scan/block_scan.cuh"

namespace satlab::gpu::scan {

enum class Scheme { ScanThenAdd, ReduceThenScan };

// Tile I/O: coalesced (striped) global accesses, transposed through shared memory to blocked
// arrangement; one padding word every 32 keeps the blocked accesses free of bank conflicts.
template <typename T, int B, int IPT>
struct TileExchange {
  static constexpr int kTile = B * IPT;
  __device__ static constexpr int pad(int i) { return i + (i >> 5); }
  struct TempStorage {
    T s[kTile + kTile / 32 + 1];
  };
  template <typename InT>
  __device__ static void load(TempStorage& t, const InT* in, int valid, T (&items)[IPT]) {
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
      const int i = k * B + int(threadIdx.x);
      t.s[pad(i)] = i < valid ? T(in[i]) : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < IPT; ++k) items[k] = t.s[pad(int(threadIdx.x) * IPT + k)];
  }
  // Items loaded striped (items[k] = element k*B + threadIdx.x) to blocked, in place.
  __device__ static void blocked_from_striped(TempStorage& t, T (&items)[IPT]) {
#pragma unroll
    for (int k = 0; k < IPT; ++k) t.s[pad(k * B + int(threadIdx.x))] = items[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < IPT; ++k) items[k] = t.s[pad(int(threadIdx.x) * IPT + k)];
  }
  __device__ static void store(TempStorage& t, T* out, int valid, const T (&items)[IPT]) {
#pragma unroll
    for (int k = 0; k < IPT; ++k) t.s[pad(int(threadIdx.x) * IPT + k)] = items[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
      const int i = k * B + int(threadIdx.x);
      if (i < valid) out[i] = t.s[pad(i)];
    }
  }
};

// Step 1 (and step 3 of ReduceThenScan): scan tile `blockIdx.x` (row-major over rows x tiles), add
// tile_prefix[tile] when given, write the tile and, when tile_total is given, its total.
template <template <typename, int, int> class Alg, int B, int IPT, typename InT, typename T>
__global__ void __launch_bounds__(B) scan_tiles(const InT* __restrict__ in, size_t in_pitch, T* __restrict__ out,
                                                size_t out_pitch, size_t width, unsigned tiles_per_row,
                                                bool inclusive, const T* __restrict__ tile_prefix,
                                                T* __restrict__ tile_total) {
  using Exchange = TileExchange<T, B, IPT>;
  using Scan = Alg<T, B, IPT>;
  __shared__ union {
    typename Exchange::TempStorage exchange;
    typename Scan::TempStorage scan;
  } temp;
  const size_t row = blockIdx.x / tiles_per_row, tile = blockIdx.x % tiles_per_row;
  const size_t first = tile * Exchange::kTile;
  const int valid = int(width - first < size_t(Exchange::kTile) ? width - first : Exchange::kTile);
  T items[IPT];
  Exchange::load(temp.exchange, in + row * in_pitch + first, valid, items);
  __syncthreads();
  T aggregate;
  Scan scan(temp.scan);
  if (inclusive) scan.InclusiveSum(items, aggregate);
  else scan.ExclusiveSum(items, aggregate);
  if (tile_prefix) {
    const T p = tile_prefix[blockIdx.x];
#pragma unroll
    for (int k = 0; k < IPT; ++k) items[k] = items[k] + p;
  }
  if (tile_total && threadIdx.x == 0) tile_total[blockIdx.x] = aggregate;
  __syncthreads();
  Exchange::store(temp.exchange, out + row * out_pitch + first, valid, items);
}

// Step 1 of ReduceThenScan: the total of every tile (thread sums, then warp reductions).
template <int B, int IPT, typename InT, typename T>
__global__ void __launch_bounds__(B) reduce_tiles(const InT* __restrict__ in, size_t in_pitch, size_t width,
                                                  unsigned tiles_per_row, T* __restrict__ tile_total) {
  __shared__ T warp_sums[B / 32];
  const size_t row = blockIdx.x / tiles_per_row, tile = blockIdx.x % tiles_per_row;
  const size_t first = tile * size_t(B * IPT);
  const int valid = int(width - first < size_t(B * IPT) ? width - first : B * IPT);
  const InT* p = in + row * in_pitch + first;
  T s = T(0);
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
    const int i = k * B + int(threadIdx.x);
    if (i < valid) s = s + T(p[i]);
  }
  s = warp::reduce(s);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < B / 32 ? warp_sums[threadIdx.x] : T(0);
    s = warp::reduce(s);
    if (threadIdx.x == 0) tile_total[blockIdx.x] = s;
  }
}

// Step 3 of ScanThenAdd: out += tile_prefix[tile] over every tile but the first of its row.
template <int B, int IPT, typename T>
__global__ void __launch_bounds__(B) add_tile_prefix(T* __restrict__ out, size_t out_pitch, size_t width,
                                                     unsigned tiles_per_row, const T* __restrict__ tile_prefix) {
  const size_t row = blockIdx.x / tiles_per_row, tile = blockIdx.x % tiles_per_row;
  if (tile == 0) return;
  const size_t first = tile * size_t(B * IPT);
  const int valid = int(width - first < size_t(B * IPT) ? width - first : B * IPT);
  T* p = out + row * out_pitch + first;
  const T add = tile_prefix[blockIdx.x];
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
    const int i = k * B + int(threadIdx.x);
    if (i < valid) p[i] = p[i] + add;
  }
}

inline std::string scan_shape(size_t width, size_t rows) {
  return "width=" + std::to_string(width) + " rows=" + std::to_string(rows);
}

template <template <typename, int, int> class Alg, int B, int IPT, typename InT, typename T>
void scan_rows(const InT* in, size_t in_pitch, T* out, size_t out_pitch, size_t width, size_t rows, bool inclusive,
               Scheme scheme, cudaStream_t s) {
  if (width == 0 || rows == 0) return;
  constexpr size_t kTile = size_t(B) * IPT;
  const size_t tiles_per_row = (width + kTile - 1) / kTile;
  const size_t tiles = tiles_per_row * rows;
  if (tiles > 0x7fffffffu) throw Error("scan: " + scan_shape(width, rows) + " needs more than 2^31 tiles");
  const unsigned grid = unsigned(tiles), tpr = unsigned(tiles_per_row);
  if (tiles_per_row == 1) {
    scan_tiles<Alg, B, IPT, InT, T><<<grid, B, 0, s>>>(in, in_pitch, out, out_pitch, width, tpr, inclusive,
                                                       nullptr, nullptr);
    SATLAB_LAUNCHED("scan_tiles", scan_shape(width, rows));
    return;
  }
  Scratch scratch(2 * tiles * sizeof(T), s);
  T* total = scratch.as<T>();
  T* prefix = scratch.as<T>(tiles);
  if (scheme == Scheme::ScanThenAdd) {
    scan_tiles<Alg, B, IPT, InT, T><<<grid, B, 0, s>>>(in, in_pitch, out, out_pitch, width, tpr, inclusive,
                                                       nullptr, total);
    SATLAB_LAUNCHED("scan_tiles", scan_shape(width, rows));
  } else {
    reduce_tiles<B, IPT, InT, T><<<grid, B, 0, s>>>(in, in_pitch, width, tpr, total);
    SATLAB_LAUNCHED("reduce_tiles", scan_shape(width, rows));
  }
  // Tile totals -> exclusive tile prefixes, each row on its own.
  scan_rows<Alg, B, IPT, T, T>(total, tiles_per_row, prefix, tiles_per_row, tiles_per_row, rows, false, scheme, s);
  if (scheme == Scheme::ScanThenAdd) {
    add_tile_prefix<B, IPT, T><<<grid, B, 0, s>>>(out, out_pitch, width, tpr, prefix);
    SATLAB_LAUNCHED("add_tile_prefix", scan_shape(width, rows));
  } else {
    scan_tiles<Alg, B, IPT, InT, T><<<grid, B, 0, s>>>(in, in_pitch, out, out_pitch, width, tpr, inclusive, prefix,
                                                       nullptr);
    SATLAB_LAUNCHED("scan_tiles (from prefixes)", scan_shape(width, rows));
  }
}

template <template <typename, int, int> class Alg, int B, int IPT, typename InT, typename T>
void scan_1d(const InT* in, T* out, size_t n, bool inclusive, Scheme scheme, cudaStream_t s) {
  scan_rows<Alg, B, IPT, InT, T>(in, n, out, n, n, 1, inclusive, scheme, s);
}

}  // namespace satlab::gpu::scan
