// Block level of the radix sorts: one tile of 4096 (key, value) pairs (256 threads x 16) ranked stably
// by one digit, then scattered through shared memory so that global writes are runs of consecutive
// addresses (one run per digit and tile).
//
// Ranking (warp-level multisplit): each warp owns 512 consecutive elements and walks them 32 at a time in
// order; __match_any_sync groups the lanes holding the same digit, the group's lowest lane reads and
// bumps the warp's counter of that digit, and every lane's rank is that count plus the number of its
// peers on lower lanes. Warp counters are then scanned across warps (per digit) and across digits (the
// project's ShuffleBlockScan), giving each element its position in the tile sorted stably by digit.
// Elements are indexed warp * 512 + k * 32 + lane, so order within warps, then warps, is input order.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/common/warp.cuh"
#include "gpu/scan/block_scan.cuh"
#include "gpu/sort/sort_common.cuh"

namespace satlab::gpu::sort::tile {

constexpr int kBlock = 256, kItems = 16, kTile = kBlock * kItems, kWarps = kBlock / 32,
              kWarpItems = 32 * kItems;
static_assert(kBlock == kDigits, "one thread per digit for the per-digit steps");

using DigitScan = scan::ShuffleBlockScan<unsigned, kBlock, 1>;

// Blocks per SM the tile kernels are built for (__launch_bounds__): 3 x 256 threads keep every thread's 16
// keys, values and ranks in registers (<= 85 each) with 3 x ~35 KB of shared memory.
constexpr int kMinBlocksPerSm = 3;

struct TempStorage {
  union {
    unsigned warp_count[kWarps][kDigits];  // ranking
    struct {
      uint32_t keys[kTile];
      uint32_t values[kTile];
    } exchange;  // scatter
  };
  unsigned digit_start[kDigits];  // first position of each digit in the sorted tile
  unsigned base[kDigits];         // global position of the tile's digit d run, minus digit_start[d]
  typename DigitScan::TempStorage scan;
};

__device__ __forceinline__ int item_index(int k) {
  return (int(threadIdx.x) >> 5) * kWarpItems + k * 32 + (int(threadIdx.x) & 31);
}

// Warp-striped loads of a tile's first `valid` elements (the rest are left unset and never used).
__device__ __forceinline__ void load(const uint32_t* __restrict__ in, int valid, uint32_t (&items)[kItems]) {
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = item_index(k);
    items[k] = i < valid ? in[i] : 0u;
  }
}

__device__ __forceinline__ unsigned digit_of(uint32_t key, int shift, unsigned mask) {
  return (key >> shift) & mask;
}

// ranks[k]: the position of item k in the tile sorted stably by its digit. Returns, in thread d, the
// tile's count of digit d; t.digit_start is set. Ends with a barrier, after which t.exchange is free.
__device__ __forceinline__ unsigned rank(TempStorage& t, const uint32_t (&keys)[kItems], int valid, int shift,
                                         unsigned mask, unsigned (&ranks)[kItems]) {
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  for (int i = int(threadIdx.x); i < kWarps * kDigits; i += kBlock) (&t.warp_count[0][0])[i] = 0;
  __syncthreads();
  unsigned* count = t.warp_count[warp];
  const unsigned below = (1u << lane) - 1u;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const bool ok = item_index(k) < valid;
    const unsigned active = __ballot_sync(0xffffffffu, ok);
    if (ok) {
      const unsigned d = digit_of(keys[k], shift, mask);
      const unsigned peers = __match_any_sync(active, d);
      const int leader = __ffs(peers) - 1;
      unsigned before = lane == leader ? count[d] : 0u;
      before = warp::broadcast(before, leader, active);
      ranks[k] = before + __popc(peers & below);
      if (lane == leader) count[d] = before + __popc(peers);
    }
    __syncwarp();
  }
  __syncthreads();
  const int d = int(threadIdx.x);
  unsigned total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {  // per digit: exclusive over warps
    const unsigned c = t.warp_count[w][d];
    t.warp_count[w][d] = total;
    total += c;
  }
  unsigned start[1] = {total}, all;
  DigitScan(t.scan).ExclusiveSum(start, all);  // barriers inside
  t.digit_start[d] = start[0];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (item_index(k) < valid) {
      const unsigned dk = digit_of(keys[k], shift, mask);
      ranks[k] += t.warp_count[warp][dk] + t.digit_start[dk];
    }
  __syncthreads();
  return total;
}

// After rank() and once the caller has set t.base and passed a barrier: keys and values to their global
// positions t.base[digit] + (position in the sorted tile), through t.exchange.
__device__ __forceinline__ void scatter(TempStorage& t, const uint32_t (&keys)[kItems],
                                        const uint32_t (&values)[kItems], const unsigned (&ranks)[kItems],
                                        int valid, int shift, unsigned mask, uint32_t* __restrict__ keys_out,
                                        uint32_t* __restrict__ values_out) {
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (item_index(k) < valid) {
      t.exchange.keys[ranks[k]] = keys[k];
      t.exchange.values[ranks[k]] = values[k];
    }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int i = j * kBlock + int(threadIdx.x);
    if (i < valid) {
      const uint32_t key = t.exchange.keys[i];
      const unsigned pos = t.base[digit_of(key, shift, mask)] + unsigned(i);
      keys_out[pos] = key;
      values_out[pos] = t.exchange.values[i];
    }
  }
}

}  // namespace satlab::gpu::sort::tile
