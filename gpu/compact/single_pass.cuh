// Single-pass stream compaction, device level, for any input and predicate: every element read once,
// every kept element written once (Merrill & Garland's decoupled look-back applied to the kept counts).
// Each block takes the next tile id from an atomic counter (so every predecessor is already running),
// loads its tile (256 threads x 16 elements by default, striped: coalesced), and evaluates the predicate;
// a warp ballot gives each warp row its kept mask and, by popc, its count and every lane's rank. Warp 0
// scans the row counts (128 of them by default), publishes the tile's aggregate and looks back for its prefix
// (the status words of gpu/scan/lookback.cuh); the kept elements are staged in shared memory at their tile
// rank and written out contiguously. Stable: the output keeps the input order. The last tile writes the
// count.
//
//   size_t single_pass_temp_bytes(size_t n);                  (<kBlock * kItems>(n) for other shapes)
//   compact_single_pass(in, keep, out, count, n, temp, stream);  (<kBlock, kItems>(...) for other shapes)
//
// `in` is a pointer or anything with a __device__ operator[](size_t) (IndexInput: the index itself);
// `keep` is a __device__ bool operator()(value); out has room for n values; count is one device uint32.
// temp: single_pass_temp_bytes(n) bytes, cleared here (status words and tile counter) on the stream.
// n < 2^31.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "gpu/check.hpp"
#include "gpu/scan/lookback.cuh"

namespace satlab::gpu::compact {

// An input whose element i is i: compacting it yields the indices of the kept elements.
struct IndexInput {
  __device__ uint32_t operator[](size_t i) const { return uint32_t(i); }
};

namespace single_pass_detail {

template <int kBlock, int kItems, typename InIt, typename T, typename Keep>
__global__ void __launch_bounds__(kBlock)
    kernel(InIt in, Keep keep, T* __restrict__ out, uint32_t* count, size_t n, unsigned long long* status,
           unsigned* counter, unsigned tiles, unsigned first_poll_ns) {
  constexpr int kTile = kBlock * kItems, kWarps = kBlock / 32;
  static_assert(kItems * kWarps % 32 == 0, "warp 0 scans whole rows per lane");
  __shared__ unsigned s_tile, s_prefix, s_aggregate;
  __shared__ unsigned
      s_row_offset[kItems * kWarps];  // kept count of row (k, warp), then its exclusive prefix
  __shared__ T s_kept[kTile];
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  const size_t first = size_t(tile) * kTile;
  const int valid = int(n - first < size_t(kTile) ? n - first : size_t(kTile));
  T items[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kBlock + int(threadIdx.x);
    items[k] = i < valid ? T(in[first + size_t(i)]) : T();
  }
  // Element k*kBlock + threadIdx.x: rows in index order are (k, warp), lanes in order within a row.
  unsigned masks[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kBlock + int(threadIdx.x);
    masks[k] = __ballot_sync(0xffffffffu, i < valid && keep(items[k]));
    if (lane == 0) s_row_offset[k * kWarps + warp] = __popc(masks[k]);
  }
  __syncthreads();
  if (warp == 0) {
    constexpr int kPer = kItems * kWarps / 32;  // rows per lane, consecutive
    unsigned v[kPer], sum = 0;
#pragma unroll
    for (int j = 0; j < kPer; ++j) sum += v[j] = s_row_offset[lane * kPer + j];
    unsigned incl = sum;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const unsigned t = __shfl_up_sync(0xffffffffu, incl, off);
      if (lane >= off) incl += t;
    }
    unsigned run = incl - sum;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      s_row_offset[lane * kPer + j] = run;
      run += v[j];
    }
    const unsigned aggregate = __shfl_sync(0xffffffffu, incl, 31);
    unsigned prefix = 0;
    if (tile == 0) {
      if (lane == 0) scan::lookback::publish(status, scan::lookback::kFlagP, aggregate);
    } else {
      if (lane == 0) scan::lookback::publish(status + tile, scan::lookback::kFlagA, aggregate);
      prefix = scan::lookback::look_back<unsigned>(status, tile, first_poll_ns);
      if (lane == 0) scan::lookback::publish(status + tile, scan::lookback::kFlagP, prefix + aggregate);
    }
    if (lane == 0) {
      s_prefix = prefix;
      s_aggregate = aggregate;
      if (tile == tiles - 1) *count = prefix + aggregate;
    }
  }
  __syncthreads();
  const unsigned below = (1u << lane) - 1u;
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if ((masks[k] >> lane) & 1u)
      s_kept[s_row_offset[k * kWarps + warp] + __popc(masks[k] & below)] = items[k];
  __syncthreads();
  const unsigned prefix = s_prefix, aggregate = s_aggregate;
  for (unsigned i = threadIdx.x; i < aggregate; i += kBlock) out[size_t(prefix) + i] = s_kept[i];
}

}  // namespace single_pass_detail

// Status words (8 bytes per tile) and the tile counter. kTile: the tile shape's elements (default 4096).
template <int kTile = 4096>
size_t single_pass_temp_bytes(size_t n) {
  return (n + kTile - 1) / kTile * sizeof(unsigned long long) + sizeof(unsigned long long);
}

// kBlock threads x kItems elements a tile (the registry also times a 256 x 32 shape).
template <int kBlock = 256, int kItems = 16, typename InIt, typename T, typename Keep>
void compact_single_pass(InIt in, Keep keep, T* out, uint32_t* count, size_t n, void* temp, cudaStream_t s) {
  using namespace single_pass_detail;
  constexpr int kTile = kBlock * kItems;
  const std::string ctx = "single-pass compaction n=" + std::to_string(n);
  if (n >= (size_t(1) << 31)) throw Error(ctx + ": n >= 2^31");
  if (n == 0) {
    SATLAB_CUDA(cudaMemsetAsync(count, 0, sizeof(uint32_t), s), ctx);
    return;
  }
  const size_t tiles = (n + kTile - 1) / kTile;
  auto* status = static_cast<unsigned long long*>(temp);
  auto* counter = reinterpret_cast<unsigned*>(status + tiles);
  SATLAB_CUDA(cudaMemsetAsync(temp, 0, single_pass_temp_bytes<kTile>(n), s), ctx);
  kernel<kBlock, kItems, InIt, T, Keep><<<unsigned(tiles), kBlock, 0, s>>>(
      in, keep, out, count, n, status, counter, unsigned(tiles), scan::lookback::first_poll_ns(tiles, 1, 0));
  SATLAB_LAUNCHED("compact single-pass", ctx);
}

}  // namespace satlab::gpu::compact
