// The guided filter's stack groups as the input of sat_lookback_2d's float tiles: a load policy
// (gpu/sat/sat_lookback_2d_f32.cuh) that forms each group's values from the guide and p as a tile loads,
// so the stack is never written to memory. The group's SAT equals sat_lookback_2d's of the stored group
// bit for bit (the same values, the same tiles and adds).
#include <cstdint>

#include "core/error.hpp"
#include "gpu/depth/guided_stack.cuh"
#include "gpu/sat/sat_lookback_2d_f32.cuh"

namespace satlab::gpu::guided_detail {
namespace {

using namespace lookback_2d;
using namespace lookback_2d::f32;

// Stack group s.group of the pixels of this thread's KR rows from element x0 (CH 4: one pixel; CH 1,
// group 3: four) to the tile, zeros below the image and past its right edge. The loads of SB rows are
// all issued before any value is formed and stored (a store to the tile may alias the images for the
// compiler, which would otherwise wait for each row's loads in turn).
template <int CH, int SB>
__device__ __forceinline__ void load_stack(const StackSource& s, const Geometry& g, int x0,
                                           int y0, float* rows) {
  static_assert(KR % SB == 0, "row batches");
  const Offsets o = offsets_of(s.acc, s.count);
  const int w = g.E / CH;  // pixels per row
#pragma unroll
  for (int r0 = 0; r0 < KR; r0 += SB) {
    float q[SB][4];  // CH 4: the guide's 3 channels (or 1) and p; CH 1: 4 pixels' guide channel 2
#pragma unroll
    for (int r = 0; r < SB; ++r) {
      const int y = y0 + r0 + r;
      const bool in = y < g.H && x0 < g.E;
      if constexpr (CH == 4) {
        const size_t i = size_t(y) * size_t(w) + size_t(x0 / 4);
        const float* gp = s.guide + i * size_t(s.gc);
        q[r][0] = in ? __ldcs(gp) : 0.f;
        q[r][1] = in && s.gc > 1 ? __ldcs(gp + 1) : 0.f;
        q[r][2] = in && s.gc > 1 ? __ldcs(gp + 2) : 0.f;
        q[r][3] = in ? __ldcs(s.p + i) : 0.f;
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k)
          q[r][k] = in && x0 + k < g.E
                        ? __ldcs(s.guide + (size_t(y) * size_t(w) + size_t(x0 + k)) * size_t(s.gc) + 2)
                        : 0.f;
      }
    }
#pragma unroll
    for (int r = 0; r < SB; ++r) {
      const int y = y0 + r0 + r;
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (y < g.H && x0 < g.E) {
        if constexpr (CH == 4) {
          float I[3];
          const float pc = __fsub_rn(q[r][3], o.p);
          if (s.nc == 1) {
            centred_guide<1>(q[r], s.gc == 1 ? 1 : 3, 0, o, I);
            v = stack4<1>(I, pc, 0);
          } else {
            centred_guide<3>(q[r], 3, 0, o, I);
            v = stack4<3>(I, pc, s.group);
          }
        } else {
          float f[V];
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const float i2 = __fsub_rn(q[r][k], o.g[2]);
            f[k] = x0 + k < g.E ? __fmul_rn(i2, i2) : 0.f;
          }
          v = make_float4(f[0], f[1], f[2], f[3]);
        }
      }
      *reinterpret_cast<float4*>(rows + r0 * kTileW + r * kTileW) = v;
    }
  }
}

// As load_stack for 4-channel groups of a 3-channel guide whose rows are 16-byte multiples (s.raw): a
// tile row is 32 pixels, and their guide (96 floats) and p (32 floats) fill the row's 512 bytes exactly,
// so each thread copies one 16-byte chunk of each of its KR rows there with cp.async (all in flight,
// none in registers, as the image tiles' loads), then its warp (a group: 32 lanes, a row's pixels) forms
// the stack values in place, half of the rows at a time, every lane's reads of a row before any write.
__device__ __forceinline__ void load_stack_raw(const StackSource& s, const Geometry& g, int x0,
                                               int y0, float* rows) {
  const int lane = threadIdx.x % kLanesF, w = g.E / 4, px0 = x0 / 4 - lane;  // the tile row's first pixel
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(rows - lane * V));
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
#pragma unroll
  for (int r = 0; r < KR; ++r) {
    const int y = y0 + r;
    const float* src;
    bool inside;
    if (lane < 24) {  // guide floats 4 lane .. 4 lane + 3 of the row's 96
      inside = y < g.H && px0 * 3 + lane * 4 < w * 3;
      src = s.guide + (size_t(y) * size_t(w) + size_t(px0)) * 3 + size_t(lane) * 4;
    } else {  // p of pixels 4 (lane - 24) ..
      inside = y < g.H && px0 + (lane - 24) * 4 < w;
      src = s.p + size_t(y) * size_t(w) + size_t(px0) + size_t(lane - 24) * 4;
    }
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(
                     dst + unsigned(r * kTileW * 4 + lane * 16)),
                 "l"(inside ? src : s.p), "r"(inside ? 16 : 0), "l"(policy)
                 : "memory");
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncwarp();  // every lane's copies, visible to the warp
  const Offsets o = offsets_of(s.acc, s.count);
  const float* row0 = rows - lane * V;  // the group's first row
  const bool px_in = px0 + lane < w;
#pragma unroll
  for (int r0 = 0; r0 < KR; r0 += KR / 2) {
    float q[KR / 2][4];
#pragma unroll
    for (int r = 0; r < KR / 2; ++r) {
      const float* row = row0 + (r0 + r) * kTileW;
      q[r][0] = row[lane * 3], q[r][1] = row[lane * 3 + 1], q[r][2] = row[lane * 3 + 2];
      q[r][3] = row[96 + lane];
    }
    __syncwarp();  // the rows read by every lane before any lane writes them
#pragma unroll
    for (int r = 0; r < KR / 2; ++r) {
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (px_in && y0 + r0 + r < g.H) {
        float I[3];
        const float pc = __fsub_rn(q[r][3], o.p);
        if (s.nc == 1) {
          centred_guide<1>(q[r], 3, 0, o, I);
          v = stack4<1>(I, pc, 0);
        } else {
          centred_guide<3>(q[r], 3, 0, o, I);
          v = stack4<3>(I, pc, s.group);
          if (s.side)  // group 3's values (I22, as load_stack forms them), coalesced: a pixel per lane
            s.side[size_t(y0 + r0 + r) * size_t(w) + size_t(px0 + lane)] = __fmul_rn(I[2], I[2]);
        }
      }
      *reinterpret_cast<float4*>(rows + (r0 + r) * kTileW) = v;
    }
  }
}

// The load policy: the raw copies where they apply (s.raw), else the values formed through registers, 4
// rows at a time. (A runtime branch: the raw copies in a kernel of their own spilled more and were
// 0.015 ms slower: docs/performance.md, "Tried and lost".)
struct StackLoad {
  StackSource s;
  template <int CH, bool VEC>
  __device__ __forceinline__ void load(const float*, const Geometry& g, int x0, int y0, float* rows) const {
    if (CH == 4 && s.raw)
      load_stack_raw(s, g, x0, y0, rows);
    else
      load_stack<CH, 4>(s, g, x0, y0, rows);
  }
};

}  // namespace

void stack_group_sat(const SatArgs& a, const StackSource& s) {
  if (!s.guide || !s.p || !s.acc) throw Error("guided stack SAT: a stack group without its images");
  const int CH = a.channels;
  if (a.dtype != DType::F32 || (CH != 4 && !(CH == 1 && s.group == 3 && s.nc == 3)))
    throw Error("guided stack SAT: a stack group is F32 with 4 channels (group 3: 1)");
  if (s.raw && !(CH == 4 && s.gc == 3 && a.width % 4 == 0 && reinterpret_cast<uintptr_t>(s.guide) % 16 == 0 &&
                 reinterpret_cast<uintptr_t>(s.p) % 16 == 0))
    throw Error("guided stack SAT: a raw-loaded stack group needs a 3-channel guide, rows of 16-byte multiples");
  if (s.side && !(s.raw && s.group == 0 && s.nc == 3))
    throw Error("guided stack SAT: group 3's side output comes from a raw-loaded group 0 (colour)");
  if (CH == 1)
    build_f32<1>(a, StackLoad{s});
  else
    build_f32<4>(a, StackLoad{s});
}

}  // namespace satlab::gpu::guided_detail
