// The GL splat's records (gpu/filter/highlight_records.hpp). Built without FMA contraction (shared float
// arithmetic with the CPU reference). Bytes: per kept sprite, its index, CoC and pixel (12 B) read and 32 B
// written.
#include <cuda_runtime.h>

#include <string>

#include "core/dof.hpp"
#include "core/highlight_sprite.hpp"
#include "core/highlights.hpp"
#include "core/highlights_pixel.hpp"
#include "gpu/check.hpp"
#include "gpu/filter/highlight_records.hpp"

namespace satlab::gpu {
namespace {

constexpr int kBlock = 256;

__global__ void __launch_bounds__(kBlock)
    records_kernel(const uint32_t* __restrict__ stats, const uint32_t* __restrict__ sorted,
                   const uchar4* __restrict__ img, const float* __restrict__ coc,
                   const uint16_t* __restrict__ lin, const dof::Rect* __restrict__ rect_table,
                   const uint8_t* __restrict__ rect_counts, int max_r, double clip_boost, int w, int h,
                   uint32_t cap, hl::SpriteRecord* __restrict__ out) {
  const uint32_t k = blockIdx.x * kBlock + threadIdx.x;
  if (k >= cap) return;
  const uint32_t kept = __ldg(stats + 1), far = __ldg(stats + 2);
  if (k == 0) hl::draw_commands(kept, far, reinterpret_cast<hl::DrawCommand*>(out));
  if (k >= kept) return;
  const uint32_t i = __ldg(sorted + k);
  const int x = int(i % uint32_t(w)), y = int(i / uint32_t(w));
  const int r = dof::shaped_radius(__ldg(coc + i), max_r);
  const uint32_t area = hl::clipped_area(rect_table + r * dof::kMaxRects, __ldg(rect_counts + r), x, y, w, h);
  const uchar4 p = __ldg(img + i);
  const double boost = (p.x == 255 || p.y == 255 || p.z == 255) ? clip_boost : 1.0;
  hl::SpriteRecord rec;
  rec.x = x, rec.y = y, rec.r = r, rec.slice = k < far ? 0 : 1;
  rec.e[0] = hl::energy(__ldg(lin + p.x), boost, area);
  rec.e[1] = hl::energy(__ldg(lin + p.y), boost, area);
  rec.e[2] = hl::energy(__ldg(lin + p.z), boost, area);
  rec.e[3] = 0.f;
  out[1 + k] = rec;
}

}  // namespace

size_t highlight_records_bytes(int cap) {
  return (size_t(cap) + 1) * sizeof(hl::SpriteRecord);
}

void highlight_records(const HighlightArgs& a, void* out) {
  const Params& p = *a.params;
  const HighlightWorkspace& ws = *a.ws;
  const uint32_t cap = uint32_t(p.highlight_cap);
  if (ws.cap != p.highlight_cap || ws.pixels != size_t(a.width) * size_t(a.height))
    throw Error("highlight_records: no highlights_prepare with these arguments");
  const size_t rect_bytes = size_t(dof::kMaxShapedRadius + 1) * dof::kMaxRects * sizeof(dof::Rect);
  const auto* rects = static_cast<const dof::Rect*>(highlight_rects_device(ws));
  const auto* counts =
      reinterpret_cast<const uint8_t*>(static_cast<const char*>(highlight_rects_device(ws)) + rect_bytes);
  records_kernel<<<(cap + kBlock - 1) / kBlock, kBlock, 0, cudaStream_t(a.stream)>>>(
      highlight_stats_device(ws), highlight_sorted_device(ws), static_cast<const uchar4*>(a.image), a.coc,
      highlight_linear_device(ws), rects, counts, shaped_max_radius(p), highlight_clip_boost(p), a.width,
      a.height, cap, static_cast<hl::SpriteRecord*>(out));
  SATLAB_LAUNCHED("highlight records_kernel", std::to_string(a.width) + "x" + std::to_string(a.height));
}

}  // namespace satlab::gpu
