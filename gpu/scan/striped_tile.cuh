// The warp-striped tile that the look-back scans share (lookback_pipelined, lookback_bulk, lookback_cluster):
// kBlock threads x kVec chunks of 4 elements; lane l of a warp holds the 16-byte chunks l, l + 32, ... of
// its warp's segment, so global loads and (streaming) stores are coalesced 16-byte accesses and shared-memory
// reads and writes are conflict-free, with no transpose. `offsets` scans a tile in registers: each column of
// chunk totals across the lanes with shuffles, then the warp totals (one barrier).
#pragma once

#include <cuda_runtime.h>

#include "gpu/common/lookback.cuh"
#include "gpu/common/warp.cuh"

namespace satlab::gpu::scan {

template <typename T, int kBlock, int kVec>
struct StripedTile {
  static constexpr int kWarps = kBlock / 32;
  static constexpr int kSize = kBlock * 4 * kVec;  // elements a tile
  using Items = T[kVec][4];
  using Word = gpu::lookback::Word64<T>;  // the status words; also the elements' bits for 16-byte accesses

  // Element offset (within the tile) of this thread's chunk 0; chunk j is 128 * j further.
  __device__ static int base() {
    return (int(threadIdx.x) >> 5) * (128 * kVec) + (int(threadIdx.x) & 31) * 4;
  }
  __device__ static void unpack(const uint4& r, T (&x)[4]) {
    x[0] = Word::from_bits(r.x), x[1] = Word::from_bits(r.y), x[2] = Word::from_bits(r.z);
    x[3] = Word::from_bits(r.w);
  }
  __device__ static uint4 pack(const T (&x)[4]) {
    return make_uint4(Word::to_bits(x[0]), Word::to_bits(x[1]), Word::to_bits(x[2]), Word::to_bits(x[3]));
  }

  // Global memory: 16-byte loads when `vec` (both ends aligned) and the tile is whole, else bounds-checked
  // element loads (zeros past `valid`).
  __device__ static void load(const T* in, int valid, bool vec, Items& x) {
    const int b = base();
    if (vec && valid == kSize) {
      const uint4* p = reinterpret_cast<const uint4*>(in + b);
#pragma unroll
      for (int j = 0; j < kVec; ++j) unpack(__ldg(p + 32 * j), x[j]);
    } else {
#pragma unroll
      for (int j = 0; j < kVec; ++j)
#pragma unroll
        for (int c = 0; c < 4; ++c) x[j][c] = b + 128 * j + c < valid ? in[b + 128 * j + c] : T(0);
    }
  }
  __device__ static void store(T* out, int valid, bool vec, const Items& x) {
    const int b = base();
    if (vec && valid == kSize) {
      uint4* p = reinterpret_cast<uint4*>(out + b);
#pragma unroll
      for (int j = 0; j < kVec; ++j) __stcs(p + 32 * j, pack(x[j]));  // streaming: not read again
    } else {
#pragma unroll
      for (int j = 0; j < kVec; ++j)
#pragma unroll
        for (int c = 0; c < 4; ++c)
          if (b + 128 * j + c < valid) out[b + 128 * j + c] = x[j][c];
    }
  }

  // Shared memory (a whole tile, 16-byte aligned).
  __device__ static void read_shared(const T* buf, Items& x) {
    const uint4* p = reinterpret_cast<const uint4*>(buf + base());
#pragma unroll
    for (int j = 0; j < kVec; ++j) unpack(p[32 * j], x[j]);
  }
  __device__ static void write_shared(T* buf, const Items& x) {
    uint4* p = reinterpret_cast<uint4*>(buf + base());
#pragma unroll
    for (int j = 0; j < kVec; ++j) p[32 * j] = pack(x[j]);
  }

  // The tile scanned up to the look-back: off[j], each chunk's exclusive offset within its warp;
  // warp_prefix, the warp's within the tile; the return value, the tile's total. One __syncthreads (s_warp,
  // kWarps values, written by each warp's last lane); the caller synchronises before reusing s_warp.
  __device__ static T offsets(const Items& x, T (&off)[kVec], T& warp_prefix, T* s_warp) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T carry = T(0);
#pragma unroll
    for (int j = 0; j < kVec; ++j) {  // each column j of chunk totals across the lanes, columns in order
      const T t = (x[j][0] + x[j][1]) + (x[j][2] + x[j][3]);
      const T incl = warp::inclusive_scan(t);
      off[j] = carry + warp::shift_up(incl, 1, T(0));
      carry = carry + warp::broadcast(incl, 31);
    }
    if (lane == 31) s_warp[warp] = carry;
    __syncthreads();
    // Every warp scans the warp totals itself (no second round through shared memory).
    const T wi = warp::inclusive_scan(lane < kWarps ? s_warp[lane] : T(0));
    const T before = warp::broadcast(wi, (warp + 31) & 31);
    warp_prefix = warp ? before : T(0);
    return warp::broadcast(wi, kWarps - 1);
  }
};

}  // namespace satlab::gpu::scan
