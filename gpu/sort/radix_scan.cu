// LSD radix sort built on the project's scans (the seed's "parallel in a pass" with 8-bit digits instead
// of one bit; Satish, Harris & Garland, "Designing Efficient Sorting Algorithms for Manycore GPUs", 2009):
// per digit pass
//   1. per tile of 4096 keys, its 256 digit counts, stored digit-major: counts[d * tiles + tile];
//   2. one exclusive scan of all counts with the project's look-back scan, looked up in the registry by
//      name (kScan): offsets[d * tiles + tile] is where the tile's run of digit d starts, since every
//      smaller digit and every earlier tile of digit d comes before it;
//   3. each tile ranks its pairs stably by digit (gpu/sort/radix_tile.cuh) and scatters them there.
// Bytes: per pass 4 bytes a key (counts) + 16 bytes a pair (scatter), plus 2 x 4 KB of counts per tile.
#include <algorithm>

#include "gpu/device.hpp"
#include "gpu/registered_scan.hpp"
#include "gpu/sort/radix_tile.cuh"
#include "gpu/sort/sort.hpp"

namespace satlab::gpu::sort {
namespace {

constexpr const char* kScan = "lookback_pipelined";
using tile::kBlock;
using tile::kTile;

__global__ void __launch_bounds__(kBlock)
    tile_counts(const uint32_t* __restrict__ keys, size_t n, int shift, unsigned mask, unsigned tiles,
                unsigned* __restrict__ counts) {
  __shared__ unsigned s[kDigits];
  s[threadIdx.x] = 0;
  __syncthreads();
  const size_t first = size_t(blockIdx.x) * kTile;
  const int valid = int(n - first < size_t(kTile) ? n - first : size_t(kTile));
#pragma unroll 4
  for (int i = int(threadIdx.x); i < valid; i += kBlock)
    atomicAdd(&s[tile::digit_of(keys[first + i], shift, mask)], 1u);
  __syncthreads();
  counts[size_t(threadIdx.x) * tiles + blockIdx.x] = s[threadIdx.x];
}

__global__ void __launch_bounds__(kBlock, tile::kMinBlocksPerSm)
    scatter_pass(const uint32_t* __restrict__ keys_in, const uint32_t* __restrict__ values_in,
                 uint32_t* __restrict__ keys_out, uint32_t* __restrict__ values_out, size_t n, int shift,
                 unsigned mask, unsigned tiles, const unsigned* __restrict__ offsets) {
  __shared__ tile::TempStorage t;
  const size_t first = size_t(blockIdx.x) * kTile;
  const int valid = int(n - first < size_t(kTile) ? n - first : size_t(kTile));
  uint32_t keys[tile::kItems], values[tile::kItems];
  unsigned ranks[tile::kItems];
  tile::load(keys_in + first, valid, keys);
  tile::load(values_in + first, valid, values);
  tile::rank(t, keys, valid, shift, mask, ranks);
  const int d = int(threadIdx.x);
  t.base[d] = offsets[size_t(d) * tiles + blockIdx.x] - t.digit_start[d];  // wraps below zero, exact mod 2^32
  __syncthreads();
  tile::scatter(t, keys, values, ranks, valid, shift, mask, keys_out, values_out);
}

const Variant& offset_scan() {
  static const Variant& v = registered_scan(kScan, "radix sort");
  return v;
}

size_t tiles_of(size_t n) {
  return (n + kTile - 1) / kTile;
}

struct Impl {
  static constexpr int kEndBit = 32;
  // Alternate keys and values [2n], counts and offsets [2 x 256 x tiles], uint32.
  static size_t temp_bytes(size_t n) {
    return (2 * n + 2 * size_t(kDigits) * tiles_of(n)) * sizeof(uint32_t);
  }
  static void run(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out,
                  uint32_t* values_out, size_t n, void* temp, cudaStream_t s) {
    const std::string ctx = "radix sort n=" + std::to_string(n);
    if (n == 0) return;
    const size_t tiles = tiles_of(n), m = size_t(kDigits) * tiles;
    auto* w = static_cast<uint32_t*>(temp);
    uint32_t *alt_keys = w, *alt_values = w + n, *counts = w + 2 * n, *offsets = counts + m;
    const int passes = passes_of(kEndBit);
    const uint32_t *src_keys = keys_in, *src_values = values_in;
    for (int p = 0; p < passes; ++p) {
      const int shift = kDigitBits * p;
      const unsigned mask = digit_mask(p, kEndBit);
      tile_counts<<<unsigned(tiles), kBlock, 0, s>>>(src_keys, n, shift, mask, unsigned(tiles), counts);
      SATLAB_LAUNCHED("radix tile_counts", ctx);
      exclusive_scan_u32(offset_scan(), counts, offsets, m, s);
      const bool to_out = pass_writes_output(p, passes);
      uint32_t* dst_keys = to_out ? keys_out : alt_keys;
      uint32_t* dst_values = to_out ? values_out : alt_values;
      scatter_pass<<<unsigned(tiles), kBlock, 0, s>>>(src_keys, src_values, dst_keys, dst_values, n, shift,
                                                      mask, unsigned(tiles), offsets);
      SATLAB_LAUNCHED("radix scatter_pass", ctx);
      src_keys = dst_keys, src_values = dst_values;
    }
  }
};

}  // namespace

Variant radix_scan_variant() {
  return make_sort_variant<Impl>("radix_scan",
                                 std::string("tile digit counts, scan (") + kScan + "), stable scatter",
                                 "seed 004_e8f3d016c5b30542.txt; Satish et al. 2009", (size_t(1) << 31) - 1);
}

}  // namespace satlab::gpu::sort
