// Single-pass stream compaction, device level, for any input and predicate: every element read once,
// every kept element written once (Merrill & Garland's decoupled look-back applied to the kept counts).
// Each block takes the next tile id from an atomic counter (so every predecessor is already running) and
// loads its tile (256 threads x 32 elements by default): each lane reads 4 consecutive elements with one
// 16-byte load when `in` is a 16-byte-aligned pointer to 4-byte elements (else 4 scalar loads), so a
// warp row is 128 consecutive elements. Per element one ballot of the predicate gives each row its kept
// count and every lane its kept elements on lower lanes; the thread keeps one bit per element. Warp 0
// scans the row counts (64 by default) and publishes the tile's aggregate; every warp then stages its
// kept elements in shared memory at their tile rank while warp 0 looks back for the tile's prefix
// (lookback::Word64 words and look_back_warp of gpu/common/lookback.cuh, after a pause of kFirstPollNs
// when the launch has at least 4 rounds of tiles, as CUB's sm90 selection does); the staged elements go
// out contiguously. Stable: the output keeps the input order. The last tile writes the count. Kernels are
// built for 32 warps per SM (4 blocks of 256 threads at <= 64 registers; docs/performance.md, "Tried and
// lost", has the shapes measured).
//
//   size_t single_pass_temp_bytes(size_t n);                  (<kBlock * kItems>(n) for other shapes)
//   compact_single_pass(in, keep, out, count, n, temp, stream);  (<kBlock, kItems>(...) for other shapes)
//
// `in` is a pointer or anything with a __device__ operator[](size_t) (IndexInput: the index itself);
// `keep` is a __device__ bool operator()(value); out has room for n values; count is one device uint32.
// temp: single_pass_temp_bytes(n) bytes, cleared here (status words and tile counter) on the stream.
// n < 2^31. kItems: a multiple of 4, at most 32, with kBlock * kItems * sizeof(T) <= 32 KB (the default
// shape takes 4-byte elements; <256, 16> 8-byte ones). The temp size must be of the same shape.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "gpu/check.hpp"
#include "gpu/common/lookback.cuh"
#include "gpu/common/warp.cuh"
#include "gpu/scan/first_poll.cuh"

namespace satlab::gpu::compact {

// An input whose element i is i: compacting it yields the indices of the kept elements.
struct IndexInput {
  __device__ uint32_t operator[](size_t i) const { return uint32_t(i); }
};

namespace single_pass_detail {

// The pause before a tile's first look-back read, on launches of at least 4 rounds of tiles (2^26 int32
// on the H200: 0.1221 ms without, 0.1136 ms at 1150 ns, 0.1396 ms at 2500 ns).
constexpr unsigned kFirstPollNs = 1150;
constexpr int kVec = 4;             // consecutive elements a lane per row
constexpr int kWarpsPerSm = 32;     // the occupancy the kernels are built for (__launch_bounds__)

// Thread t's item (r, c) of a tile is element (r * kBlock + t) * kVec + c: a warp's row r is 32 * kVec
// consecutive elements; rows in index order are (r, warp). kLoadVec: one 16-byte load per lane and row.
template <bool kLoadVec, typename InIt, typename T>
__device__ __forceinline__ void load_row(InIt in, size_t at, int i, int valid, T (&v)[kVec]) {
  if constexpr (kLoadVec) {
    static_assert(sizeof(std::remove_pointer_t<InIt>) == 4 && sizeof(T) == 4, "4-byte elements");
    if (i + kVec - 1 < valid) {
      const int4 q = __ldg(reinterpret_cast<const int4*>(in + at + size_t(i)));
      const int w[kVec] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int c = 0; c < kVec; ++c) {
        if constexpr (std::is_floating_point_v<T>)
          v[c] = __int_as_float(w[c]);
        else
          v[c] = T(w[c]);
      }
      return;
    }
  }
#pragma unroll
  for (int c = 0; c < kVec; ++c) v[c] = i + c < valid ? T(in[at + size_t(i + c)]) : T();
}

// 16-byte loads: for a pointer to 4-byte elements, 16-byte aligned (tiles start at multiples of 16 bytes).
template <typename InIt, typename T>
constexpr bool can_load_vectors() {
  if constexpr (std::is_pointer_v<InIt>)
    return sizeof(std::remove_pointer_t<InIt>) == 4 && sizeof(T) == 4;
  else
    return false;
}
template <typename T, typename InIt>
bool vector_loads(InIt in) {
  if constexpr (can_load_vectors<InIt, T>())
    return reinterpret_cast<uintptr_t>(in) % 16 == 0;
  else
    return false;
}

template <int kBlock, int kItems, bool kLoadVec, typename InIt, typename T, typename Keep>
__global__ void __launch_bounds__(kBlock, kWarpsPerSm * 32 / kBlock)
    kernel(InIt in, Keep keep, T* __restrict__ out, uint32_t* count, size_t n, unsigned long long* status,
           unsigned* counter, unsigned tiles, unsigned first_poll_ns) {
  constexpr int kTile = kBlock * kItems, kWarps = kBlock / 32, kRows = kItems / kVec, kRowsAll = kRows * kWarps;
  constexpr int kPer = (kRowsAll + 31) / 32;  // rows per lane of warp 0's scan, consecutive
  static_assert(kItems % kVec == 0 && kItems <= 32, "whole rows, one bit per item");
  static_assert(kTile * sizeof(T) <= 32768, "staging over 32 KB a block: a smaller kItems for wider elements");
  __shared__ unsigned s_tile, s_prefix, s_aggregate;
  __shared__ unsigned s_row_offset[kRowsAll];  // kept count of row (r, warp), then its exclusive prefix
  __shared__ T s_kept[kTile];
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  const lookback::Word64<unsigned> word;  // the status words' codec
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  const size_t first = size_t(tile) * kTile;
  const int valid = int(n - first < size_t(kTile) ? n - first : size_t(kTile));
  T items[kRows][kVec];
#pragma unroll
  for (int r = 0; r < kRows; ++r)
    load_row<kLoadVec>(in, first, (r * kBlock + int(threadIdx.x)) * kVec, valid, items[r]);
  // One bit per item (kept or not); per row the lane's count of kept items on lower lanes.
  unsigned kept = 0, lane_before[kRows];
  const unsigned below = (1u << lane) - 1u;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    unsigned row = 0;
    lane_before[r] = 0;
#pragma unroll
    for (int c = 0; c < kVec; ++c) {
      const int i = (r * kBlock + int(threadIdx.x)) * kVec + c;
      const bool k = i < valid && keep(items[r][c]);
      const unsigned m = __ballot_sync(0xffffffffu, k);
      kept |= unsigned(k) << (r * kVec + c);
      row += __popc(m);
      lane_before[r] += __popc(m & below);
    }
    if (lane == 0) s_row_offset[r * kWarps + warp] = row;
  }
  __syncthreads();
  unsigned aggregate = 0;
  if (warp == 0) {
    unsigned v[kPer], sum = 0;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int row = lane * kPer + j;
      sum += v[j] = row < kRowsAll ? s_row_offset[row] : 0u;
    }
    const unsigned incl = warp::inclusive_scan(sum);
    unsigned run = incl - sum;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int row = lane * kPer + j;
      if (row < kRowsAll) s_row_offset[row] = run;
      run += v[j];
    }
    aggregate = warp::broadcast(incl, 31);
    if (lane == 0) {
      lookback::publish(status + tile, tile == 0 ? lookback::kInclusive : lookback::kAggregate, aggregate,
                        word);
      s_aggregate = aggregate;
    }
  }
  __syncthreads();
  // The kept elements to their places in the tile (warp 0 first, then it looks back).
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    unsigned rank = s_row_offset[r * kWarps + warp] + lane_before[r];
#pragma unroll
    for (int c = 0; c < kVec; ++c)
      if ((kept >> (r * kVec + c)) & 1u) s_kept[rank++] = items[r][c];
  }
  if (warp == 0) {
    unsigned prefix = 0;
    if (tile > 0) {
      prefix = lookback::look_back_warp(status, tile, word, first_poll_ns);
      if (lane == 0) lookback::publish_inclusive(status + tile, prefix + aggregate, word);
    }
    if (lane == 0) {
      s_prefix = prefix;
      if (tile == tiles - 1) *count = prefix + aggregate;
    }
  }
  __syncthreads();
  const unsigned prefix = s_prefix, total = s_aggregate;
  for (unsigned i = threadIdx.x; i < total; i += kBlock) out[size_t(prefix) + i] = s_kept[i];
}

}  // namespace single_pass_detail

// Status words (8 bytes per tile) and the tile counter. kTile: the tile shape's elements (default 8192).
template <int kTile = 8192>
size_t single_pass_temp_bytes(size_t n) {
  return (n + kTile - 1) / kTile * sizeof(unsigned long long) + sizeof(unsigned long long);
}

// kBlock threads x kItems elements a tile.
template <int kBlock = 256, int kItems = 32, typename InIt, typename T, typename Keep>
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
  static const int sms = [] {
    int device = 0, count = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    return count > 0 ? count : 1;
  }();
  const unsigned poll =
      scan::lookback::first_poll_ns(tiles, size_t(sms) * (kWarpsPerSm * 32 / kBlock), kFirstPollNs);
  if (vector_loads<T>(in))
    kernel<kBlock, kItems, can_load_vectors<InIt, T>(), InIt, T, Keep>
        <<<unsigned(tiles), kBlock, 0, s>>>(in, keep, out, count, n, status, counter, unsigned(tiles), poll);
  else
    kernel<kBlock, kItems, false, InIt, T, Keep>
        <<<unsigned(tiles), kBlock, 0, s>>>(in, keep, out, count, n, status, counter, unsigned(tiles), poll);
  SATLAB_LAUNCHED("compact single-pass", ctx);
}

}  // namespace satlab::gpu::compact
