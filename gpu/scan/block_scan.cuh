// Block-level scans, CUB-style: interchangeable algorithms with one interface, chosen by template
// parameter, that the device-level driver (gpu/scan/device_scan.cuh), the scan variants and the SAT
// builders compose.
//
//   template <typename T, int BLOCK_THREADS, int ITEMS_PER_THREAD> struct XxxBlockScan {
//     struct TempStorage;                                   // __shared__, one per block
//     __device__ explicit XxxBlockScan(TempStorage&);
//     __device__ void InclusiveSum(T (&items)[ITEMS_PER_THREAD], T& block_aggregate);
//     __device__ void ExclusiveSum(T (&items)[ITEMS_PER_THREAD], T& block_aggregate);
//   };
//
// Items are in blocked arrangement (thread t holds elements t*IPT .. t*IPT+IPT-1 of the tile); every
// thread receives the block aggregate. As with CUB, call __syncthreads() before reusing TempStorage.
// T is uint32_t (int32 sums are scanned as uint32: wrap-around, same bits, no signed overflow) or float.
//
// Each algorithm first reduces its thread's items serially, scans the BLOCK_THREADS thread totals with
// its own method, then rescans its items from the thread's exclusive prefix. With ITEMS_PER_THREAD = 1
// this is the textbook algorithm on one element per thread.
//   HillisSteeleBlockScan      double-buffered Hillis-Steele: log2(B) steps, O(B log B) adds
//   BlellochBlockScan<PADDED>  work-efficient up-sweep/down-sweep, O(B) adds, 2 log2(B) barriers;
//                              PADDED inserts one word every 32 against bank conflicts (GPU Gems 3 ch. 39)
//   ShuffleBlockScan           shuffle scans inside warps, then one of the warp totals (gpu/common/warp.cuh)
//   CubBlockScan<ALGO>         cub::BlockScan with BLOCK_SCAN_RAKING or BLOCK_SCAN_WARP_SCANS
// Sources: seed 004_e8f3d016c5b30542.txt (Hillis-Steele and Blelloch scans), Harris/Sengupta/Owens,
// "Parallel Prefix Sum (Scan) with CUDA", GPU Gems 3 ch. 39; CUB (CCCL) BlockScan.
// The seeds' warp-synchronous scans without barriers race since Volta; every shared-memory step here is
// separated by __syncthreads(), and warp-level steps use *_sync shuffles.
#pragma once
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>
#include <cstdint>

#include "gpu/common/warp.cuh"

namespace satlab::gpu::scan {

// Thread-level pieces shared by all algorithms (the "serial per-thread scan" layer).
template <typename T, int IPT>
__device__ __forceinline__ T thread_reduce(const T (&items)[IPT]) {
  T s = items[0];
#pragma unroll
  for (int i = 1; i < IPT; ++i) s = s + items[i];
  return s;
}
template <typename T, int IPT>
__device__ __forceinline__ void thread_scan(T (&items)[IPT], T prefix, bool inclusive) {
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const T x = items[i];
    items[i] = inclusive ? prefix + x : prefix;
    prefix = prefix + x;
  }
}

// Base: turns an exclusive scan of one value per thread (Derived::exclusive_of_totals) into the
// InclusiveSum / ExclusiveSum of blocked items.
template <typename Derived, typename T, int IPT>
struct ThreadTotalsScan {
  __device__ void InclusiveSum(T (&items)[IPT], T& block_aggregate) { run(items, block_aggregate, true); }
  __device__ void ExclusiveSum(T (&items)[IPT], T& block_aggregate) { run(items, block_aggregate, false); }

 private:
  __device__ void run(T (&items)[IPT], T& aggregate, bool inclusive) {
    const T prefix = static_cast<Derived*>(this)->exclusive_of_totals(thread_reduce(items), aggregate);
    thread_scan(items, prefix, inclusive);
  }
};

template <typename T, int BLOCK_THREADS, int ITEMS_PER_THREAD>
struct HillisSteeleBlockScan
    : ThreadTotalsScan<HillisSteeleBlockScan<T, BLOCK_THREADS, ITEMS_PER_THREAD>, T, ITEMS_PER_THREAD> {
  struct TempStorage {
    T buf[2][BLOCK_THREADS];
  };
  __device__ explicit HillisSteeleBlockScan(TempStorage& t) : t_(t) {}

  // Inclusive Hillis-Steele over the totals, ping-ponging between two buffers so no step reads a slot
  // that the same step overwrites.
  __device__ T exclusive_of_totals(T x, T& aggregate) {
    const int tid = threadIdx.x;
    int cur = 0;
    t_.buf[cur][tid] = x;
    __syncthreads();
#pragma unroll
    for (int off = 1; off < BLOCK_THREADS; off *= 2) {
      const T v = tid >= off ? t_.buf[cur][tid - off] + t_.buf[cur][tid] : t_.buf[cur][tid];
      cur ^= 1;
      t_.buf[cur][tid] = v;
      __syncthreads();
    }
    aggregate = t_.buf[cur][BLOCK_THREADS - 1];
    return tid > 0 ? t_.buf[cur][tid - 1] : T(0);
  }

 private:
  TempStorage& t_;
};

template <typename T, int BLOCK_THREADS, int ITEMS_PER_THREAD, bool PADDED>
struct BlellochBlockScan
    : ThreadTotalsScan<BlellochBlockScan<T, BLOCK_THREADS, ITEMS_PER_THREAD, PADDED>, T, ITEMS_PER_THREAD> {
  static_assert((BLOCK_THREADS & (BLOCK_THREADS - 1)) == 0, "Blelloch needs a power-of-two block");
  __device__ static constexpr int slot(int i) { return PADDED ? i + (i >> 5) : i; }
  struct TempStorage {
    T s[BLOCK_THREADS + (PADDED ? BLOCK_THREADS / 32 : 0)];
    T aggregate;
  };
  __device__ explicit BlellochBlockScan(TempStorage& t) : t_(t) {}

  __device__ T exclusive_of_totals(T x, T& aggregate) {
    const int tid = threadIdx.x;
    t_.s[slot(tid)] = x;
    // Up-sweep: a balanced tree of partial sums in place.
#pragma unroll
    for (int d = 1; d < BLOCK_THREADS; d *= 2) {
      __syncthreads();
      if (tid < BLOCK_THREADS / (2 * d)) {
        const int ai = d * (2 * tid + 1) - 1, bi = d * (2 * tid + 2) - 1;
        t_.s[slot(bi)] = t_.s[slot(bi)] + t_.s[slot(ai)];
      }
    }
    __syncthreads();
    if (tid == 0) {
      t_.aggregate = t_.s[slot(BLOCK_THREADS - 1)];
      t_.s[slot(BLOCK_THREADS - 1)] = T(0);
    }
    // Down-sweep: swap-and-add from the root turns the tree into an exclusive scan.
#pragma unroll
    for (int d = BLOCK_THREADS / 2; d >= 1; d /= 2) {
      __syncthreads();
      if (tid < BLOCK_THREADS / (2 * d)) {
        const int ai = d * (2 * tid + 1) - 1, bi = d * (2 * tid + 2) - 1;
        const T a = t_.s[slot(ai)];
        t_.s[slot(ai)] = t_.s[slot(bi)];
        t_.s[slot(bi)] = t_.s[slot(bi)] + a;
      }
    }
    __syncthreads();
    aggregate = t_.aggregate;
    return t_.s[slot(tid)];
  }

 private:
  TempStorage& t_;
};
template <typename T, int B, int IPT>
using BlellochPaddedBlockScan = BlellochBlockScan<T, B, IPT, true>;
template <typename T, int B, int IPT>
using BlellochUnpaddedBlockScan = BlellochBlockScan<T, B, IPT, false>;

template <typename T, int BLOCK_THREADS, int ITEMS_PER_THREAD>
struct ShuffleBlockScan : ThreadTotalsScan<ShuffleBlockScan<T, BLOCK_THREADS, ITEMS_PER_THREAD>, T, ITEMS_PER_THREAD> {
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, at most 32 of them");
  static constexpr int kWarps = BLOCK_THREADS / 32;
  struct TempStorage {
    T warp_prefix[kWarps];
    T aggregate;
  };
  __device__ explicit ShuffleBlockScan(TempStorage& t) : t_(t) {}

  __device__ T exclusive_of_totals(T x, T& aggregate) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const T incl = warp::inclusive_scan(x);
    const T excl = warp::shift_up(incl, 1, T(0));
    if (lane == 31) t_.warp_prefix[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      const T w = lane < kWarps ? t_.warp_prefix[lane] : T(0);
      const T wi = warp::inclusive_scan(w);
      const T we = warp::shift_up(wi, 1, T(0));
      __syncwarp();
      if (lane < kWarps) t_.warp_prefix[lane] = we;
      if (lane == 31) t_.aggregate = wi;
    }
    __syncthreads();
    aggregate = t_.aggregate;
    return t_.warp_prefix[warp] + excl;
  }

 private:
  TempStorage& t_;
};

template <typename T, int BLOCK_THREADS, int ITEMS_PER_THREAD, cub::BlockScanAlgorithm ALGO>
struct CubBlockScan {
  using Impl = cub::BlockScan<T, BLOCK_THREADS, ALGO>;
  using TempStorage = typename Impl::TempStorage;
  __device__ explicit CubBlockScan(TempStorage& t) : impl_(t) {}
  __device__ void InclusiveSum(T (&items)[ITEMS_PER_THREAD], T& block_aggregate) {
    impl_.InclusiveSum(items, items, block_aggregate);
  }
  __device__ void ExclusiveSum(T (&items)[ITEMS_PER_THREAD], T& block_aggregate) {
    impl_.ExclusiveSum(items, items, block_aggregate);
  }

 private:
  Impl impl_;
};
template <typename T, int B, int IPT>
using CubRakingBlockScan = CubBlockScan<T, B, IPT, cub::BLOCK_SCAN_RAKING>;
template <typename T, int B, int IPT>
using CubWarpScansBlockScan = CubBlockScan<T, B, IPT, cub::BLOCK_SCAN_WARP_SCANS>;

}  // namespace satlab::gpu::scan
