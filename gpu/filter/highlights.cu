// Bokeh highlights on the GPU (core/highlights.hpp has the algorithm; CPU reference core/highlights.cpp;
// shared arithmetic core/highlights_pixel.hpp; built without FMA contraction so both agree bit for bit).
// Phases, each reported through HighlightArgs::phase:
//   compact  the project's single-pass compaction (gpu/compact/single_pass.cuh) of pixel indices with the
//            highlight test fused as its predicate; a copy of the image becomes the gather's input;
//   sort     one kernel builds (key, index) pairs for the first `cap` sprites, pads the rest with the
//            largest key and zeroes the sprites' colour in the gather's input; the project's one-sweep
//            radix sort (gpu/sort/onesweep.hpp) orders them back to front; one warp finds the far/near split;
//   splat    one warp per sprite: its lanes walk the rows of the aperture's rectangles and add the sprite's
//            fixed-point weight at each row span's start and subtract it after its end (integer atomics:
//            order-free, so the result is exact and deterministic), and flag the row as touched.
// After the gather, `add`: one block per touched row integrates the six planes (block-wide prefix sums in
// chunks of 256 pixels), adds the splat to the result in linear light and zeroes the plane entries it read
// as non-zero; untouched rows cost one flag read.
// Bytes (minimum, per pixel): compact reads 8 (image, CoC), the copy reads and writes 4; add reads 24 (the
// planes) + 8 and writes 4 per touched row's pixel.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/dof.hpp"
#include "core/dof_spread.hpp"
#include "core/highlights.hpp"
#include "core/highlights_pixel.hpp"
#include "gpu/check.hpp"
#include "gpu/common/warp.cuh"
#include "gpu/compact/single_pass.cuh"
#include "gpu/filter/highlights_gpu.hpp"
#include "gpu/sort/onesweep.hpp"

namespace satlab::gpu {
namespace {

constexpr int kBlock = 256;
constexpr int kPlanes = kHighlightPlanes;

struct IsHighlight {
  const uchar4* img;
  const float* coc;
  const uint16_t* lin;
  uint32_t lum_min;
  int max_r;
  __device__ bool operator()(uint32_t i) const {
    const uchar4 p = __ldg(img + i);
    if (hl::luminance(__ldg(lin + p.x), __ldg(lin + p.y), __ldg(lin + p.z)) < lum_min) return false;
    return dof::shaped_radius(__ldg(coc + i), max_r) >= hl::kMinRadius;
  }
};

// stats[0] = found (the compaction's count). Slot k < min(found, cap): the sprite's key and pixel, and the
// pixel's colour zeroed in the gather's input; else the pad key.
__global__ void __launch_bounds__(kBlock)
    pairs_kernel(const uint32_t* __restrict__ idx, const uint32_t* __restrict__ stats, uint32_t cap,
                 const float* __restrict__ coc, uchar4* __restrict__ masked, uint32_t* __restrict__ keys,
                 uint32_t* __restrict__ vals) {
  const uint32_t k = blockIdx.x * kBlock + threadIdx.x;
  if (k >= cap) return;
  const uint32_t kept = min(stats[0], cap);
  if (k < kept) {
    const uint32_t p = idx[k];
    keys[k] = hl::depth_key(__ldg(coc + p));
    vals[k] = p;
    masked[p] = make_uchar4(0, 0, 0, masked[p].w);
  } else {
    keys[k] = hl::kPadKey;
    vals[k] = 0;
  }
}

// stats[1] = kept, stats[2] = far: the first sorted key at or above kNearKey (one warp, binary search).
__global__ void split_kernel(const uint32_t* __restrict__ keys, uint32_t cap, uint32_t* stats) {
  if (threadIdx.x != 0) return;
  const uint32_t kept = min(stats[0], cap);
  uint32_t lo = 0, hi = kept;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < hl::kNearKey)
      lo = mid + 1;
    else
      hi = mid;
  }
  stats[1] = kept, stats[2] = lo;
}

// A warp per sprite. Profiled (highlight_profiled): the spread's apertures, a dof::SpreadInfo per radius in
// `infos`; else aperture_table's kMaxRects per radius, `counts` of them (hl::flat_info). Each rectangle adds
// its component's mult times the pixel weight (uint32 wrap-around for a negative mult, as the CPU's planes).
template <bool Profiled>
__global__ void __launch_bounds__(kBlock)
    splat_kernel(const uint32_t* __restrict__ stats, const uint32_t* __restrict__ vals,
                 const uchar4* __restrict__ img, const float* __restrict__ coc,
                 const uint16_t* __restrict__ lin, const dof::Rect* __restrict__ rect_table,
                 const uint8_t* __restrict__ rect_counts, const dof::SpreadInfo* __restrict__ infos, int max_r,
                 bool flip_front, bool cat_eye, double clip_boost, int w, int h, size_t n, uint32_t* __restrict__ planes,
                 uint32_t* __restrict__ rows) {
  const uint32_t k = (blockIdx.x * kBlock + threadIdx.x) >> 5;
  const int lane = int(threadIdx.x & 31);
  if (k >= __ldg(stats + 1)) return;  // warp-uniform
  const uint32_t i = __ldg(vals + k);
  const int x = int(i % uint32_t(w)), y = int(i / uint32_t(w));
  const float ci = __ldg(coc + i);
  const int r = dof::shaped_radius(ci, max_r);
  // With cat-eye, the bin's table (dof::cat_eye_bin).
  const int slot = Profiled && cat_eye ? dof::cat_eye_bin(x, y, w, h, ci > 0.f) * (max_r + 1) + r : r;
  const dof::Rect* rects = rect_table + slot * (Profiled ? dof::kMaxSpreadRects : dof::kMaxRects);
  const dof::SpreadInfo in = Profiled ? infos[slot] : hl::flat_info(__ldg(rect_counts + r), flip_front);
  const bool turn = in.flip && ci > 0.f;  // a picture in front of the focus plane (ApertureTable::flip_front)
  const uint32_t area = hl::profiled_area(rects, in, x, y, w, h, turn);
  const uchar4 p = __ldg(img + i);
  const double boost = (p.x == 255 || p.y == 255 || p.z == 255) ? clip_boost : 1.0;
  const uint32_t wt[3] = {hl::weight(__ldg(lin + p.x), boost, area),
                          hl::weight(__ldg(lin + p.y), boost, area),
                          hl::weight(__ldg(lin + p.z), boost, area)};
  uint32_t* out = planes + (k < __ldg(stats + 2) ? size_t(0) : 3 * n);
  int total = 0;
  for (int q = 0; q < in.count; ++q) total += rects[q].y1 - rects[q].y0 + 1;
  for (int t = lane; t < total; t += 32) {
    int q = 0, first = 0;
    while (t - first >= rects[q].y1 - rects[q].y0 + 1) first += rects[q].y1 - rects[q].y0 + 1, ++q;
    const dof::Rect rc = turn ? dof::flipped(rects[q]) : rects[q];
    const uint32_t mult = uint32_t(int(in.mult[hl::component_of(in, q)]));
    const int yy = y + rc.y0 + (t - first);
    if (yy < 0 || yy >= h) continue;
    const int x0 = max(x + rc.x0, 0), x1 = min(x + rc.x1, w - 1);
    if (x1 < x0) continue;
    const size_t row = size_t(yy) * size_t(w);
    for (int c = 0; c < 3; ++c) {
      const uint32_t v = wt[c] * mult;
      atomicAdd(out + size_t(c) * n + row + size_t(x0), v);
      if (x1 + 1 < w) atomicAdd(out + size_t(c) * n + row + size_t(x1 + 1), 0u - v);
    }
    rows[yy] = 1u;
  }
}

// One block per row: if touched, integrate its planes, add to the result, clear what was read.
__global__ void __launch_bounds__(kBlock)
    add_kernel(uint32_t* __restrict__ planes, uint32_t* __restrict__ rows, const float* __restrict__ coc,
               const uint16_t* __restrict__ lin, const uint8_t* __restrict__ enc, int w, size_t n,
               uchar4* __restrict__ out) {
  const int y = blockIdx.x;
  if (rows[y] == 0u) return;  // block-uniform
  __shared__ uint32_t s_warp[kBlock / 32][kPlanes];
  const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
  uint32_t carry[kPlanes] = {};
  for (int x0 = 0; x0 < w; x0 += kBlock) {
    const int x = x0 + int(threadIdx.x);
    const bool in = x < w;
    const size_t i = size_t(y) * size_t(w) + size_t(x);
    uint32_t raw[kPlanes], v[kPlanes];
#pragma unroll
    for (int q = 0; q < kPlanes; ++q) v[q] = raw[q] = in ? planes[size_t(q) * n + i] : 0u;
#pragma unroll
    for (int q = 0; q < kPlanes; ++q) v[q] = warp::inclusive_scan(v[q]);
    if (lane == 31)
      for (int q = 0; q < kPlanes; ++q) s_warp[warp][q] = v[q];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kPlanes; ++q) {
      uint32_t before = carry[q], all = carry[q];
      for (int j = 0; j < kBlock / 32; ++j) {
        if (j < warp) before += s_warp[j][q];
        all += s_warp[j][q];
      }
      v[q] += before;
      carry[q] = all;
    }
    __syncthreads();  // s_warp is rewritten by the next chunk
    if (in) {
      const bool far_visible = __ldg(coc + i) < 0.f;
      const uchar4 g = out[i];
      out[i] = make_uchar4(hl::composite(g.x, v[3] + (far_visible ? v[0] : 0u), lin, enc),
                           hl::composite(g.y, v[4] + (far_visible ? v[1] : 0u), lin, enc),
                           hl::composite(g.z, v[5] + (far_visible ? v[2] : 0u), lin, enc), g.w);
#pragma unroll
      for (int q = 0; q < kPlanes; ++q)
        if (raw[q]) planes[size_t(q) * n + i] = 0u;
    }
  }
  if (threadIdx.x == 0) rows[y] = 0u;
}

}  // namespace

HighlightWorkspace::~HighlightWorkspace() {
  for (DofBuffer* b :
       {&masked, &indices, &compact_temp, &pairs, &sort_temp, &planes, &rows, &rects, &luts, &stats})
    b->release();
}

const uint32_t* highlight_stats_device(const HighlightWorkspace& ws) {
  return static_cast<const uint32_t*>(ws.stats.p);
}

const uint32_t* highlight_sorted_device(const HighlightWorkspace& ws) {
  return static_cast<const uint32_t*>(ws.pairs.p) + 3 * size_t(ws.cap);  // keys, vals, keys_out, vals_out
}
const void* highlight_rects_device(const HighlightWorkspace& ws) {
  return ws.rects.p;
}
const uint16_t* highlight_linear_device(const HighlightWorkspace& ws) {
  return static_cast<const uint16_t*>(ws.luts.p);
}

const void* highlights_prepare(const HighlightArgs& a) {
  const Params& p = *a.params;
  HighlightWorkspace& ws = *a.ws;
  const cudaStream_t st = cudaStream_t(a.stream);
  const int w = a.width, h = a.height, max_r = shaped_max_radius(p);
  const size_t n = size_t(w) * size_t(h);
  const uint32_t cap = uint32_t(p.highlight_cap);
  const std::string size = std::to_string(w) + "x" + std::to_string(h);
  auto phase = [&](const char* s) {
    if (a.phase) a.phase(s);
  };
  // Buffers; the planes and row flags are cleared once here and kept clear by add_kernel.
  const size_t rect_bytes = size_t(dof::kMaxShapedRadius + 1) * dof::kMaxRects * sizeof(dof::Rect);
  grow(ws.stats, 4 * sizeof(uint32_t), "highlight stats");
  grow(ws.masked, n * 4, "the highlights' gather input");
  grow(ws.indices, n * 4, "highlight compaction");
  grow(ws.compact_temp, compact::single_pass_temp_bytes(n), "highlight compaction");
  grow(ws.pairs, size_t(cap) * 16, "highlight sort pairs");
  grow(ws.sort_temp, sort::onesweep_temp_bytes(cap), "highlight sort");
  ws.cap = int(cap);  // the pairs' layout of this frame (highlight_sorted_device)
  if (ws.pixels != n || ws.planes.bytes < n * 4 * kPlanes || ws.rows.bytes < size_t(h) * 4) {
    grow(ws.planes, n * 4 * kPlanes, "highlight planes");
    grow(ws.rows, size_t(h) * 4, "highlight row flags");
    SATLAB_CUDA(cudaMemsetAsync(ws.planes.p, 0, n * 4 * kPlanes, st), "highlight planes");
    SATLAB_CUDA(cudaMemsetAsync(ws.rows.p, 0, size_t(h) * 4, st), "highlight row flags");
    ws.pixels = n;
  }
  if (!a.mode) throw Error("highlights_prepare: no DoF mode");
  Params shape = p;
  shape.aperture_shape = a.mode->aperture(p);
  const bool profiled = highlight_profiled(p, *a.mode);
  // The spread's tables: kCatEyeBins of them with cat-eye (dof::cat_eye_bin), each of max_r + 1 radii.
  const size_t slots = size_t(p.cat_eye > 0.f ? dof::kCatEyeBins : 1) * size_t(max_r + 1);
  const size_t spread_rect_bytes = slots * dof::kMaxSpreadRects * sizeof(dof::Rect);
  if (profiled) {  // the spread's apertures: rectangles, then a SpreadInfo per radius
    SpreadApertures sa;  // kept until upload_shape has waited for the copies
    upload_shape(ws.rects, ws.luts, ws.shape_key, "highlights/" + spread_aperture_key(shape, max_r),
                 p.response_shoulder, a.stream,
                 spread_rect_bytes + slots * sizeof(dof::SpreadInfo),
                 [&](DofBuffer& b, void* stream) {
                   const cudaStream_t s2 = cudaStream_t(stream);
                   sa = spread_apertures(shape, max_r);
                   SATLAB_CUDA(cudaMemcpyAsync(b.p, sa.rects.data(), sa.rects.size() * sizeof(dof::Rect),
                                               cudaMemcpyHostToDevice, s2),
                               "highlight spread rectangles");
                   SATLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(b.p) + spread_rect_bytes, sa.info.data(),
                                               sa.info.size() * sizeof(dof::SpreadInfo), cudaMemcpyHostToDevice,
                                               s2),
                               "highlight spread rectangles");
                 });
  } else {
    const std::string key = aperture_key(shape, max_r);
    upload_aperture(ws.rects, ws.luts, ws.shape_key, key, p.response_shoulder, a.stream,
                    [&] { return aperture_table(shape, max_r); });
  }
  const auto* img = static_cast<const uchar4*>(a.image);
  const auto* lin = static_cast<const uint16_t*>(ws.luts.p);
  auto* stats = static_cast<uint32_t*>(ws.stats.p);
  auto* idx = static_cast<uint32_t*>(ws.indices.p);
  auto* masked = static_cast<uchar4*>(ws.masked.p);

  phase("compact");
  SATLAB_CUDA(cudaMemcpyAsync(masked, img, n * 4, cudaMemcpyDeviceToDevice, st), "highlights' gather input");
  const uint32_t lum_min = hl::luminance_min(p.highlight_threshold, p.response_shoulder);
  compact::compact_single_pass(compact::IndexInput{}, IsHighlight{img, a.coc, lin, lum_min, max_r}, idx, stats, n,
                               ws.compact_temp.p, st);

  phase("sort");
  auto* keys = static_cast<uint32_t*>(ws.pairs.p);
  uint32_t* vals = keys + cap;
  uint32_t* keys_out = vals + cap;
  uint32_t* vals_out = keys_out + cap;
  pairs_kernel<<<(cap + kBlock - 1) / kBlock, kBlock, 0, st>>>(idx, stats, cap, a.coc, masked, keys, vals);
  SATLAB_LAUNCHED("highlight pairs_kernel", size);
  sort::onesweep_sort_pairs(keys, vals, keys_out, vals_out, cap, ws.sort_temp.p, st);
  split_kernel<<<1, 32, 0, st>>>(keys_out, cap, stats);
  SATLAB_LAUNCHED("highlight split_kernel", size);

  phase("splat");
  const auto* rects = static_cast<const dof::Rect*>(ws.rects.p);
  const auto* rect_counts =
      reinterpret_cast<const uint8_t*>(static_cast<const char*>(ws.rects.p) + rect_bytes);
  const unsigned blocks = unsigned((size_t(cap) * 32 + kBlock - 1) / kBlock);
  const auto* infos = profiled ? reinterpret_cast<const dof::SpreadInfo*>(static_cast<const char*>(ws.rects.p) +
                                                                          spread_rect_bytes)
                                : nullptr;
  auto* planes = static_cast<uint32_t*>(ws.planes.p);
  auto* rows = static_cast<uint32_t*>(ws.rows.p);
  const bool flip = !shape.aperture_image.empty();
  if (profiled)
    splat_kernel<true><<<blocks, kBlock, 0, st>>>(stats, vals_out, img, a.coc, lin, rects, nullptr, infos, max_r,
                                                  flip, p.cat_eye > 0.f, highlight_clip_boost(p), w, h, n, planes,
                                                  rows);
  else
    splat_kernel<false><<<blocks, kBlock, 0, st>>>(stats, vals_out, img, a.coc, lin, rects, rect_counts, nullptr,
                                                   max_r, flip, false, highlight_clip_boost(p), w, h, n, planes,
                                                   rows);
  SATLAB_LAUNCHED("highlight splat_kernel", size);
  return masked;
}

void highlights_add(const HighlightArgs& a, void* result) {
  HighlightWorkspace& ws = *a.ws;
  const int w = a.width, h = a.height;
  const size_t n = size_t(w) * size_t(h);
  if (ws.pixels != n) throw Error("highlights_add: no highlights_prepare at this size");
  const auto* lin = static_cast<const uint16_t*>(ws.luts.p);
  add_kernel<<<unsigned(h), kBlock, 0, cudaStream_t(a.stream)>>>(
      static_cast<uint32_t*>(ws.planes.p), static_cast<uint32_t*>(ws.rows.p), a.coc, lin,
      reinterpret_cast<const uint8_t*>(lin) + 512, w, n, static_cast<uchar4*>(result));
  SATLAB_LAUNCHED("highlight add_kernel", std::to_string(w) + "x" + std::to_string(h));
}

}  // namespace satlab::gpu
