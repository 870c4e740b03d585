// The guided filter's stack values (gpu/depth/guided_filter.cu), shared by its stack kernel and by the
// load policy through which sat_lookback_2d's float tiles form them as they load
// (gpu/depth/guided_stack_sat.cu): centred guide and p and their products, every operation an explicitly
// rounded intrinsic (no contraction), so that both equal core's stack bit for bit. Stack groups (colour): 0 = I0 I1 I2 p, 1 = I0p I1p I2p I00,
// 2 = I01 I02 I11 I12, 3 = I22; gray: 0 = I p Ip II.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "core/variant.hpp"

namespace satlab::gpu::guided_detail {

__device__ __forceinline__ float luma(const float* g) {
  return __fadd_rn(__fadd_rn(__fmul_rn(0.2126f, g[0]), __fmul_rn(0.7152f, g[1])), __fmul_rn(0.0722f, g[2]));
}

struct Offsets {
  float g[3], p;
};
// The offsets from the sums of the sampled rows (acc: guide 0..2 or luma/gray 0, p 3) over `count` pixels.
__device__ __forceinline__ Offsets offsets_of(const double* acc, double count) {
  return {{float(acc[0] / count), float(acc[1] / count), float(acc[2] / count)}, float(acc[3] / count)};
}

// Centred guide value(s) of pixel i: NC = 1 (gray: luma, or the guide's one channel) or 3.
template <int NC>
__device__ __forceinline__ void centred_guide(const float* __restrict__ guide, int gc, size_t i,
                                              const Offsets& o, float I[3]) {
  const float* g = guide + i * size_t(gc);
  if (NC == 1)
    I[0] = __fsub_rn(gc == 1 ? g[0] : luma(g), o.g[0]);
  else
    for (int c = 0; c < 3; ++c) I[c] = __fsub_rn(g[c], o.g[c]);
}

// The 4 values of stack group `group` (0..2; gray: 0) at one pixel.
template <int NC>
__device__ __forceinline__ float4 stack4(const float (&I)[3], float pc, int group) {
  if (NC == 1) return make_float4(I[0], pc, __fmul_rn(I[0], pc), __fmul_rn(I[0], I[0]));
  if (group == 0) return make_float4(I[0], I[1], I[2], pc);
  if (group == 1)
    return make_float4(__fmul_rn(I[0], pc), __fmul_rn(I[1], pc), __fmul_rn(I[2], pc), __fmul_rn(I[0], I[0]));
  return make_float4(__fmul_rn(I[0], I[1]), __fmul_rn(I[0], I[2]), __fmul_rn(I[1], I[1]),
                     __fmul_rn(I[1], I[2]));
}

// A stack group as a float SAT builder's input, formed where the builder loads it (sat_lookback_2d's
// float tiles, stack_group_sat): `group` 0..2 (4 channels) or 3 (colour only: 1 channel, I22).
struct StackSource {
  const float* guide;
  int gc;  // guide channels (1, 3, 4)
  int nc;  // used: 1 (gray) or 3
  const float* p;
  const double* acc;  // the offsets' sums
  double count;       // over this many pixels
  int group;
  bool raw = false;  // 4-channel groups: guide and p copied to the tile as they are, then formed there
                     // (gc 3, width a multiple of 4, 16-byte aligned; stack_group_sat checks)
  float* side = nullptr;  // group 0, raw: also writes I22 (colour) here, w * h floats (group 3's input)
};

// The float SAT of stack group s.group (a.channels 4, or 1 for group 3) by sat_lookback_2d's float tiles,
// the group formed from the guide and p as each tile loads (gpu/depth/guided_stack_sat.cu); a.in is not
// read. Host side; throws satlab::Error.
void stack_group_sat(const SatArgs& a, const StackSource& s);

}  // namespace satlab::gpu::guided_detail
