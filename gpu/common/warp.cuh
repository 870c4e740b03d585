// The warp layer (thread -> warp -> block -> device, as CUB's WarpScan / WarpReduce): every exchange of
// values between the lanes of a warp in the library goes through these functions, the shuffle teaching
// variants' too (gpu/scan/shuffle.cu and gpu/reduce/warp_shuffle.cu, through ShuffleBlockScan and
// block_reduce_shfl); __shfl_*_sync is spelt out here only.
//
//   shfl / shfl_up / shfl_down / shfl_xor   the shuffles, for any value type: the types CUDA shuffles
//                                           natively go to the intrinsic, any other trivially copyable
//                                           type of a multiple of 4 bytes (uint4, a struct) word by word
//   broadcast(v, src)                       lane src's v in every lane
//   shift_up(v, d, fill)                    lane (lane - d)'s v, `fill` in the first d lanes
//   inclusive_scan(v, op)                   Kogge-Stone with shfl_up: log2(width / stride) steps
//   reduce(v, op)                           tree with shfl_down: the warp's result in lane 0
//   all_reduce(v, op)                       butterfly with shfl_xor: the result in every lane
//
// kWidth (a power of two up to 32): the functions work on independent segments of kWidth consecutive
// lanes (the shuffles' `width`). kStride (scan and all_reduce): lanes kStride apart form one sequence, as
// in interleaved channels (lane l belongs to channel l % kStride). op defaults to Plus (a + b); every
// step computes op(own, other), so float sums are the same bits as the loops they replace. The lane is
// threadIdx.x % kWidth: one-dimensional blocks (or blockDim.x a multiple of 32), every lane of the warp
// taking part (mask: all lanes, except broadcast's optional mask).
#pragma once
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

namespace satlab::gpu::warp {

constexpr unsigned kAllLanes = 0xffffffffu;

struct Plus {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

// This thread's lane within its segment of kWidth lanes.
template <int kWidth = 32>
__device__ __forceinline__ int lane() {
  static_assert(kWidth > 0 && kWidth <= 32 && (kWidth & (kWidth - 1)) == 0, "a power of two up to 32");
  return int(threadIdx.x & unsigned(kWidth - 1));
}

namespace detail {

template <typename T>
constexpr bool kNative =
    std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, long> ||
    std::is_same_v<T, unsigned long> || std::is_same_v<T, long long> ||
    std::is_same_v<T, unsigned long long> || std::is_same_v<T, float> || std::is_same_v<T, double>;

// v through `shuffle` (a generic lambda around one intrinsic): at once where CUDA shuffles T, else one
// 32-bit word at a time.
template <typename T, typename Shuffle>
__device__ __forceinline__ T shuffled(const T& v, Shuffle shuffle) {
  if constexpr (kNative<T>) {
    return shuffle(v);
  } else {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0, "whole 32-bit words");
    constexpr int kWords = int(sizeof(T) / 4);
    unsigned w[kWords];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < kWords; ++i) w[i] = shuffle(w[i]);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
  }
}

}  // namespace detail

template <int kWidth = 32, typename T>
__device__ __forceinline__ T shfl(const T& v, int src, unsigned mask = kAllLanes) {
  return detail::shuffled(v, [&](auto x) { return __shfl_sync(mask, x, src, kWidth); });
}
template <int kWidth = 32, typename T>
__device__ __forceinline__ T shfl_up(const T& v, unsigned d) {
  return detail::shuffled(v, [&](auto x) { return __shfl_up_sync(kAllLanes, x, d, kWidth); });
}
template <int kWidth = 32, typename T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned d) {
  return detail::shuffled(v, [&](auto x) { return __shfl_down_sync(kAllLanes, x, d, kWidth); });
}
template <int kWidth = 32, typename T>
__device__ __forceinline__ T shfl_xor(const T& v, int m) {
  return detail::shuffled(v, [&](auto x) { return __shfl_xor_sync(kAllLanes, x, m, kWidth); });
}

// Lane src's v (src counted within the segment), in every lane of the segment.
template <int kWidth = 32, typename T>
__device__ __forceinline__ T broadcast(const T& v, int src, unsigned mask = kAllLanes) {
  return shfl<kWidth>(v, src, mask);
}

// The v of the lane d below, or `fill` in the segment's first d lanes.
template <int kWidth = 32, typename T>
__device__ __forceinline__ T shift_up(const T& v, int d, const T& fill) {
  const T n = shfl_up<kWidth>(v, unsigned(d));
  return lane<kWidth>() >= d ? n : fill;
}

// Inclusive scan over the lanes of each segment (kStride: over the lanes kStride apart).
template <int kWidth = 32, int kStride = 1, typename T, typename Op = Plus>
__device__ __forceinline__ T inclusive_scan(T v, Op op = {}) {
  const int l = lane<kWidth>();
#pragma unroll
  for (int d = kStride; d < kWidth; d <<= 1) {
    const T n = shfl_up<kWidth>(v, unsigned(d));
    if (l >= d) v = op(v, n);
  }
  return v;
}

// The reduction of the warp's 32 values, valid in lane 0.
template <typename T, typename Op = Plus>
__device__ __forceinline__ T reduce(T v, Op op = {}) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, shfl_down(v, unsigned(o)));
  return v;
}

// The reduction over each segment (kStride: over the lanes kStride apart in it), in every lane.
template <int kWidth = 32, int kStride = 1, typename T, typename Op = Plus>
__device__ __forceinline__ T all_reduce(T v, Op op = {}) {
#pragma unroll
  for (int m = kWidth / 2; m >= kStride; m >>= 1) v = op(v, shfl_xor(v, m));
  return v;
}

}  // namespace satlab::gpu::warp
