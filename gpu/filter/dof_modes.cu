// The shaped, linear-light and layered depth-of-field modes on the GPU (core/dof_modes.hpp; CPU reference
// core/dof.cpp's dof_shaped_blur, per-pixel arithmetic shared through core/dof_pixel.hpp, this file built
// without FMA contraction so that both agree bit for bit).
// Stages, each reported through DofArgs::stage:
//   layers     per-layer CoC sums (block-local sums, one shared atomic per layer and warp), means (or the
//              whole image's, DofArgs::layer_sums, for a tile) and bounding boxes, the boxes read back (one
//              stream synchronisation; layered mode only);
//   slice      one launch: per layer j the (colour, 1) image of the pixels of layer j over the layer's box
//              (the frame for one layer; none for an empty layer): RGBA16 of the 12-bit values for linear
//              light where the SAT builder takes RGBA16 (sat_tiled, the default), else RGBA8 images of the
//              colour's low bytes and, for linear light, of its high bytes;
//   sat        the tables through the registry's SAT builder (with two RGBA8 images the table of 12-bit
//              values is SAT(low) + 256 SAT(high), exact in wrap-around uint32 because SATs are linear);
//   composite  dof::layered_pixel per pixel (the count taps of its presence tests one 4-byte channel).
// Bytes (minimum, per pixel of a box): slice reads 8 per frame pixel and writes 8 (4 per RGBA8 image); each
// SAT 24 (20); composite reads the tables' 16 B per table once and the CoC, writes 4. Measurements:
// docs/performance.md, "Depth-of-field modes".
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/common/warp.cuh"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

constexpr int kBlock = 256;

// Each thread sums its pixels per layer in registers; warps reduce them with shuffles and lane 0 adds the
// warp's sums to the block's, one shared atomic per layer and warp (per-pixel shared atomics on 8 counters
// took 0.59 ms at 3840x2160). A thread walks one column (x fixed, y rising by gridDim.y): no division for
// the coordinates, and its part of a layer's box is x and the first and last rows it saw the layer in
// (a grid-stride walk over the flat index tracking four bounds per layer took 0.16 ms, 80 registers).
__global__ void __launch_bounds__(kBlock)
    layer_sums_kernel(const float* __restrict__ coc, int w, int h, dof::Layers layers,
                      unsigned long long* __restrict__ sums, unsigned* __restrict__ counts,
                      unsigned* __restrict__ box) {
  __shared__ unsigned long long s_sum[dof::kMaxLayers];
  __shared__ unsigned s_count[dof::kMaxLayers], s_box[4][dof::kMaxLayers];
  if (threadIdx.x < dof::kMaxLayers) {
    s_sum[threadIdx.x] = 0, s_count[threadIdx.x] = 0;
    s_box[0][threadIdx.x] = s_box[1][threadIdx.x] = 0xffffffffu, s_box[2][threadIdx.x] = s_box[3][threadIdx.x] = 0u;
  }
  __syncthreads();
  long long sum[dof::kMaxLayers] = {};
  unsigned count[dof::kMaxLayers] = {}, last[dof::kMaxLayers] = {}, first[dof::kMaxLayers];
#pragma unroll
  for (int k = 0; k < dof::kMaxLayers; ++k) first[k] = 0xffffffffu;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w)
    for (int y = blockIdx.y; y < h; y += gridDim.y) {
      float c = __ldg(coc + size_t(y) * size_t(w) + size_t(x));
      c = c == c ? c : 0.f;
      const int j = dof::layer_of(c, layers);
      const long long v = __float2ll_rn(c * 256.f);
#pragma unroll
      for (int k = 0; k < dof::kMaxLayers; ++k)
        if (k == j) {
          sum[k] += v, ++count[k];
          first[k] = min(first[k], unsigned(y)), last[k] = unsigned(y);
        }
    }
#pragma unroll
  for (int k = 0; k < dof::kMaxLayers; ++k) {
    const long long sk = warp::reduce(sum[k]);
    const unsigned ck = warp::reduce(count[k]);
    if (box) {
      const unsigned seen = count[k] ? unsigned(x) : 0xffffffffu;
      const unsigned x0 = __reduce_min_sync(0xffffffffu, seen), y0 = __reduce_min_sync(0xffffffffu, first[k]),
                     x1 = __reduce_max_sync(0xffffffffu, count[k] ? unsigned(x) : 0u),
                     y1 = __reduce_max_sync(0xffffffffu, last[k]);
      if ((threadIdx.x & 31) == 0 && ck) {
        atomicMin(&s_box[0][k], x0), atomicMin(&s_box[1][k], y0);
        atomicMax(&s_box[2][k], x1), atomicMax(&s_box[3][k], y1);
      }
    }
    if ((threadIdx.x & 31) == 0 && ck) {
      atomicAdd(&s_sum[k], (unsigned long long)sk);  // two's complement: wraps to the signed sum
      atomicAdd(&s_count[k], ck);
    }
  }
  __syncthreads();
  if (threadIdx.x < layers.count && s_count[threadIdx.x]) {
    atomicAdd(&sums[threadIdx.x], s_sum[threadIdx.x]);
    atomicAdd(&counts[threadIdx.x], s_count[threadIdx.x]);
    if (box) {
      atomicMin(&box[threadIdx.x], s_box[0][threadIdx.x]);
      atomicMin(&box[dof::kMaxLayers + threadIdx.x], s_box[1][threadIdx.x]);
      atomicMax(&box[2 * dof::kMaxLayers + threadIdx.x], s_box[2][threadIdx.x]);
      atomicMax(&box[3 * dof::kMaxLayers + threadIdx.x], s_box[3][threadIdx.x]);
    }
  }
}

__global__ void layer_means_kernel(const unsigned long long* sums, const unsigned* counts, dof::Layers layers,
                                   float* means) {
  dof::layer_means(reinterpret_cast<const long long*>(sums), counts, layers);
  for (int j = 0; j < layers.count; ++j) means[j] = layers.mean_coc[j];
}

// Each layer's image over its box: x0, y0, width, height (0 for an empty layer) and its offset in bytes.
struct Boxes {
  int ox[dof::kMaxLayers], oy[dof::kMaxLayers], bw[dof::kMaxLayers], bh[dof::kMaxLayers];
  size_t at[dof::kMaxLayers];
};

// One launch over the frame: each pixel is read once and written to every layer's image whose box holds
// it, (colour, 1) in its own layer's and zeros in the others'. WIDE (linear light with a 16-bit-input SAT
// builder): one RGBA16 image of the 12-bit values per layer; otherwise RGBA8 images, the colour's low
// bytes and, for linear light, a second image of the high bytes after them (bw * bh pixels on).
template <bool WIDE>
__global__ void __launch_bounds__(kBlock)
    slice_kernel(const uchar4* __restrict__ img, const float* __restrict__ coc, int w, int h,
                 dof::Layers layers, Boxes boxes, bool linear, const uint16_t* __restrict__ lin,
                 char* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const size_t g = size_t(y) * size_t(w) + size_t(x);
  float c = __ldg(coc + g);
  c = c == c ? c : 0.f;
  const int own = dof::layer_of(c, layers);
  const uchar4 p = img[g];
  uint32_t v[3] = {p.x, p.y, p.z};
  if (linear)
    for (int k = 0; k < 3; ++k) v[k] = __ldg(lin + v[k]);
#pragma unroll
  for (int j = 0; j < dof::kMaxLayers; ++j) {
    if (j >= layers.count) break;
    const int lx = x - boxes.ox[j], ly = y - boxes.oy[j];
    if (unsigned(lx) >= unsigned(boxes.bw[j]) || unsigned(ly) >= unsigned(boxes.bh[j])) continue;
    const size_t i = size_t(ly) * size_t(boxes.bw[j]) + size_t(lx);
    const bool mine = own == j;
    if (WIDE) {
      reinterpret_cast<ushort4*>(out + boxes.at[j])[i] =
          mine ? make_ushort4(uint16_t(v[0]), uint16_t(v[1]), uint16_t(v[2]), 1) : make_ushort4(0, 0, 0, 0);
    } else {
      uchar4* lo = reinterpret_cast<uchar4*>(out + boxes.at[j]);
      lo[i] = mine ? make_uchar4(v[0] & 255u, v[1] & 255u, v[2] & 255u, 1) : make_uchar4(0, 0, 0, 0);
      if (linear)
        lo[size_t(boxes.bw[j]) * size_t(boxes.bh[j]) + i] =
            mine ? make_uchar4(v[0] >> 8, v[1] >> 8, v[2] >> 8, 0) : make_uchar4(0, 0, 0, 0);
    }
  }
}

// Table t covers its layer's bounding box [ox, x1] x [oy, y1] (pitch `pitch`), or nothing (lo null: an
// empty layer). No pixel of the layer lies outside the box, so the frame's inclusive SAT at (x, y) is the
// box's at (min(x, x1), min(y, y1)), and 0 left of or above the box. BOXED false (one layer, the whole
// frame): plain taps, 0 at x or y < 0, the box's bounds not read. HI: there are high-byte tables.
// Lean taps (the composite is bound by instruction issue; docs/performance.md, "The spread's phases"): 32-bit
// indices (a table holds at most 16384^2 < 2^31 pixels), no test for an empty layer's table (every tap of
// dof::layered_pixel reads a layer known to be non-empty: its own, one whose count was not 0, or one that
// may_hold let through), no high table's load or test without HI: the layered composite 1.315 -> 1.004 ms at
// 3840x2160, gather_linear's 0.849 -> 0.582, against 64-bit indices and both tests in every tap.
template <bool BOXED, bool HI>
struct Tables {
  using Index = uint32_t;
  const uint4* lo[dof::kMaxLayers];
  const uint4* hi[dof::kMaxLayers];  // null without linear light, or with one table of 16-bit input
  int ox[dof::kMaxLayers], oy[dof::kMaxLayers], x1[dof::kMaxLayers], y1[dof::kMaxLayers], pitch[dof::kMaxLayers];
  __device__ __forceinline__ bool at(int t, int x, int y, Index& i) const {
    if (!BOXED) {
      if (x < 0 || y < 0) return false;
      i = Index(y) * Index(pitch[0]) + Index(x);
      return true;
    }
    if (x < ox[t] || y < oy[t]) return false;
    i = Index(min(y, y1[t]) - oy[t]) * Index(pitch[t]) + Index(min(x, x1[t]) - ox[t]);
    return true;
  }
  __device__ __forceinline__ dof::Sum4 operator()(int t, int x, int y) const {
    dof::Sum4 s = {{0u, 0u, 0u, 0u}};
    Index i;
    if (!at(t, x, y, i)) return s;
    if (!BOXED) t = 0;
    const uint4 a = __ldg(lo[t] + i);
    s.c[0] = a.x, s.c[1] = a.y, s.c[2] = a.z, s.c[3] = a.w;
    if (HI && hi[t]) {
      const uint4 b = __ldg(hi[t] + i);
      s.c[0] += b.x << 8, s.c[1] += b.y << 8, s.c[2] += b.z << 8, s.c[3] += b.w << 8;
    }
    return s;
  }
  // Whether table t can hold a pixel in [x0, x1] x [y0, y1]: not where the rectangle misses its box (its
  // count there is 0: the skipped taps would clamp to equal values).
  __device__ __forceinline__ bool may_hold(int t, int x0, int y0, int x1, int y1) const {
    return !BOXED || (lo[t] && x1 >= ox[t] && y1 >= oy[t] && x0 <= this->x1[t] && y0 <= this->y1[t]);
  }
  // The count channel: the low (or only) table's (the high image's fourth byte is 0).
  __device__ __forceinline__ uint32_t count(int t, int x, int y) const {
    Index i;
    if (!at(t, x, y, i)) return 0u;
    if (!BOXED) t = 0;
    return __ldg(reinterpret_cast<const uint32_t*>(lo[t] + i) + 3);
  }
};

// MIN_BLOCKS blocks of 256 per SM: 5 (48 registers, about 100 B of spills) took the layered composite
// to 1.41 ms at 3840x2160 where the 64 registers the compiler picks alone (4 blocks) took 1.59; the
// composite waits on its taps' latency.
template <bool BOXED, int MIN_BLOCKS, bool SKIP, bool HI>
__global__ void __launch_bounds__(kBlock, MIN_BLOCKS)
    composite_kernel(Tables<BOXED, HI> tables, dof::Layers layers, const float* __restrict__ means,
                     const dof::Rect* __restrict__ rects, const uint8_t* __restrict__ counts, int max_r,
                     bool linear, const uint8_t* __restrict__ enc, const uchar4* __restrict__ img,
                     const float* __restrict__ coc, int w, int h, uchar4* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (means)
    for (int j = 0; j < layers.count; ++j) layers.mean_coc[j] = __ldg(means + j);
  const size_t i = size_t(y) * size_t(w) + size_t(x);
  float v[3];
  dof::layered_pixel<Tables<BOXED, HI>, SKIP>(tables, layers, rects, counts, max_r, dof::fill_reach(max_r),
                                              linear ? float(dof::kLinearOne) : 255.f, x, y, w, h,
                                              __ldg(coc + i), v);
  out[i] = make_uchar4(dof::encode(v[0], linear, enc), dof::encode(v[1], linear, enc),
                       dof::encode(v[2], linear, enc), img[i].w);
}

// Layered (boxed tables): 6 blocks per SM, the layers behind a full one skipped; one layer (plain taps):
// 5 blocks per SM, no skip (nothing lies behind layer 0; the same bits).
template <bool BOXED, bool HI>
void launch_composite(const Tables<BOXED, HI>& t, dim3 grid, dim3 block, cudaStream_t st,
                      const dof::Layers& layers, const float* means, const dof::Rect* rects,
                      const uint8_t* rc, int max_r, bool linear, const uint8_t* enc, const uchar4* img,
                      const float* coc, int w, int h, uchar4* out) {
  constexpr int kMinBlocks = BOXED ? 6 : 5;
  composite_kernel<BOXED, kMinBlocks, BOXED, HI>
      <<<grid, block, 0, st>>>(t, layers, means, rects, rc, max_r, linear, enc, img, coc, w, h, out);
}

}  // namespace

namespace {
std::atomic<unsigned long> growths{0};
}  // namespace

unsigned long buffer_growths() {
  return growths.load();
}

void grow(DofBuffer& b, size_t bytes, const char* what) {
  if (b.bytes >= bytes) return;
  ++growths;
  b.release();
  SATLAB_CUDA(cudaMalloc(&b.p, bytes), std::string("allocation of ") + std::to_string(bytes >> 20) + " MiB for " + what);
  b.bytes = bytes;
}

void upload_shape(DofBuffer& rects, DofBuffer& luts, std::string& uploaded, const std::string& key,
                  float shoulder, void* stream, size_t bytes,
                  const std::function<void(DofBuffer&, void*)>& put) {
  const cudaStream_t st = cudaStream_t(stream);
  const void *was_rects = rects.p, *was_luts = luts.p;
  grow(rects, bytes, "aperture rectangles");
  grow(luts, 256 * sizeof(uint16_t) + dof::kLinearOne + 1, "transfer tables");
  if (rects.p != was_rects || luts.p != was_luts) uploaded.clear();  // a new buffer holds nothing yet
  const std::string full = key + "/" + std::to_string(response_key(shoulder));
  if (full == uploaded) return;
  put(rects, stream);
  SATLAB_CUDA(cudaMemcpyAsync(luts.p, srgb_to_linear12(shoulder), 256 * sizeof(uint16_t), cudaMemcpyHostToDevice, st),
              "transfer tables");
  SATLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(luts.p) + 512, linear12_to_srgb(shoulder), dof::kLinearOne + 1,
                              cudaMemcpyHostToDevice, st),
              "transfer tables");
  SATLAB_CUDA(cudaStreamSynchronize(st), "aperture upload");  // the host tables are temporaries
  uploaded = full;
}

void upload_aperture(DofBuffer& rects, DofBuffer& luts, std::string& uploaded, const std::string& key,
                     float shoulder, void* stream, const std::function<ApertureTable()>& table) {
  const size_t rect_bytes = size_t(dof::kMaxShapedRadius + 1) * dof::kMaxRects * sizeof(dof::Rect);
  ApertureTable t;  // kept until upload_shape has waited for the copies
  upload_shape(rects, luts, uploaded, key, shoulder, stream, rect_bytes + dof::kMaxShapedRadius + 1,
               [&](DofBuffer& b, void* stream) {
                 const cudaStream_t st = cudaStream_t(stream);
                 t = table();
                 SATLAB_CUDA(cudaMemcpyAsync(b.p, t.rects.data(), t.rects.size() * sizeof(dof::Rect),
                                             cudaMemcpyHostToDevice, st),
                             "aperture rectangles");
                 SATLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(b.p) + rect_bytes, t.counts.data(),
                                             t.counts.size(), cudaMemcpyHostToDevice, st),
                             "aperture rectangles");
               });
}

void DofBuffer::release() {
  if (p) cudaFree(p);
  p = nullptr, bytes = 0;
}

DofWorkspace::~DofWorkspace() {
  for (DofBuffer* b : {&images, &tables, &stats, &rects, &luts, &box.sat}) b->release();
}

void dof_shaped(const DofMode& m, const DofArgs& a) {
  const Params& p = *a.params;
  const DofSetup setup = dof_setup(m, p);
  auto& ws = *static_cast<DofWorkspace*>(a.workspace);
  const cudaStream_t st = cudaStream_t(a.stream);
  const int w = a.width, h = a.height, max_r = shaped_max_radius(p);
  const size_t n = size_t(w) * size_t(h);
  const int images = setup.linear ? 2 : 1, count = setup.layers * images;
  const std::string size = std::to_string(w) + "x" + std::to_string(h);
  auto stage = [&](const char* s) {
    if (a.stage) a.stage(s);
  };

  // Aperture rectangles and transfer tables: uploaded when the shape or the camera response changes.
  const std::string key = aperture_key(p, max_r);
  const size_t rect_bytes = size_t(dof::kMaxShapedRadius + 1) * dof::kMaxRects * sizeof(dof::Rect);
  upload_aperture(ws.rects, ws.luts, ws.shape_key, key, p.response_shoulder, a.stream,
                  [&] { return aperture_table(p, max_r); });
  grow(ws.stats, dof::kMaxLayers * (sizeof(unsigned long long) + sizeof(unsigned) + sizeof(float) + 4 * sizeof(unsigned)),
       "layer sums");
  grow(ws.images, n * 4 * size_t(count), "DoF layer images");
  grow(ws.tables, n * 16 * size_t(count), "DoF layer tables");

  dof::Layers layers = frame_layers(p, setup.layers, a.depth);
  // A tile of a larger image: the whole image's layer means, in the composite's parameters (the layer sums
  // below then give the layers' boxes alone).
  const bool given = a.layer_sums && setup.layers > 1;
  if (given) apply_layer_sums(*a.layer_sums, layers);
  auto* sums = static_cast<unsigned long long*>(ws.stats.p);
  auto* counts = reinterpret_cast<unsigned*>(sums + dof::kMaxLayers);
  auto* means = reinterpret_cast<float*>(counts + dof::kMaxLayers);
  auto* box = reinterpret_cast<unsigned*>(means + dof::kMaxLayers);
  const auto* coc = static_cast<const float*>(a.coc);
  // Each layer's box (x0, y0, x1, y1; x0 > x1 when empty): the whole frame unless cropped.
  int bx[dof::kMaxLayers][4];
  for (auto& b : bx) b[0] = 0, b[1] = 0, b[2] = w - 1, b[3] = h - 1;
  // Layered: each layer's images and tables cover its bounding box only, an empty layer none (the boxes
  // read back after the layer sums: one stream synchronisation per frame).
  const bool crop = setup.layers > 1;
  if (setup.layers > 1) {
    stage("layers");
    SATLAB_CUDA(cudaMemsetAsync(ws.stats.p, 0, dof::kMaxLayers * (sizeof(unsigned long long) + sizeof(unsigned)), st),
                "layer sums");
    if (crop) {
      SATLAB_CUDA(cudaMemsetAsync(box, 0xff, 2 * dof::kMaxLayers * sizeof(unsigned), st), "layer boxes");
      SATLAB_CUDA(cudaMemsetAsync(box + 2 * dof::kMaxLayers, 0, 2 * dof::kMaxLayers * sizeof(unsigned), st), "layer boxes");
    }
    // About 16 blocks per SM of 132: each column of blocks walks h / rows of the frame's rows.
    const unsigned across = unsigned((w + kBlock - 1) / kBlock),
                   rows = std::max(1u, std::min(unsigned(h), 132u * 16u / across));
    layer_sums_kernel<<<dim3(across, rows), kBlock, 0, st>>>(coc, w, h, layers, sums, counts,
                                                             crop ? box : nullptr);
    SATLAB_LAUNCHED("layer_sums_kernel", size);
    if (!given) {
      layer_means_kernel<<<1, 1, 0, st>>>(sums, counts, layers, means);
      SATLAB_LAUNCHED("layer_means_kernel", size);
    }
    if (crop) {
      unsigned hb[4 * dof::kMaxLayers];
      SATLAB_CUDA(cudaMemcpyAsync(hb, box, sizeof(hb), cudaMemcpyDeviceToHost, st), "layer boxes");
      SATLAB_CUDA(cudaStreamSynchronize(st), "layer boxes");
      for (int j = 0; j < setup.layers; ++j) {
        int* b = bx[j];
        for (int k = 0; k < 4; ++k) b[k] = hb[k * dof::kMaxLayers + j] > unsigned(1 << 30) ? (k < 2 ? 1 : 0) : int(hb[k * dof::kMaxLayers + j]);
        if (b[0] > b[2]) continue;  // empty
        // Widths a multiple of 4 pixels where the frame allows (a wider box is exact: the slice writes zeros
        // for other layers' pixels): the SAT builder's 16-byte loads and stores, 16-byte-aligned images.
        const int bw = std::min(w, (b[2] - b[0] + 4) / 4 * 4);
        b[0] = std::min(b[0], w - bw), b[2] = b[0] + bw - 1;
      }
    }
  }
  // Layer j's images (and tables, at the same pixel offsets) from pixel offset at[j], packed: one table
  // per layer of 16-bit input (linear light, with a builder that takes RGBA16) or `images` RGBA8 ones.
  const bool wide = setup.linear && a.sat->refuses && a.sat->refuses(n, DType::RGBA16).empty();
  const int per_layer = wide ? 1 : images;
  Boxes boxes{};
  size_t at[dof::kMaxLayers] = {}, next = 0;
  for (int j = 0; j < setup.layers; ++j) {
    const int bw = std::max(0, bx[j][2] - bx[j][0] + 1), bh = std::max(0, bx[j][3] - bx[j][1] + 1);
    boxes.ox[j] = bx[j][0], boxes.oy[j] = bx[j][1], boxes.bw[j] = bw, boxes.bh[j] = bh;
    at[j] = next, boxes.at[j] = next * (wide ? 8 : 4);
    next += size_t(bw) * size_t(bh) * size_t(per_layer);
  }
  stage("slice");
  auto* imgs = static_cast<char*>(ws.images.p);
  const auto* lin = static_cast<const uint16_t*>(ws.luts.p);
  const dim3 block(32, 8), grid((unsigned(w) + 31) / 32, (unsigned(h) + 7) / 8);  // 16x16 and 32x4: slower
  if (wide)
    slice_kernel<true><<<grid, block, 0, st>>>(static_cast<const uchar4*>(a.image), coc, w, h, layers, boxes,
                                               setup.linear, lin, imgs);
  else
    slice_kernel<false><<<grid, block, 0, st>>>(static_cast<const uchar4*>(a.image), coc, w, h, layers, boxes,
                                                setup.linear, lin, imgs);
  SATLAB_LAUNCHED("slice_kernel", size);
  stage("sat");
  const uint4* tp[dof::kMaxLayers][2] = {};
  for (int j = 0; j < setup.layers; ++j) {
    const int bw = boxes.bw[j], bh = boxes.bh[j];
    if (bw <= 0 || bh <= 0) continue;  // no table: an empty layer
    for (int k = 0; k < per_layer; ++k) {
      const size_t pos = at[j] + size_t(k) * size_t(bw) * size_t(bh);
      SatArgs s;
      s.in = imgs + pos * (wide ? 8 : 4), s.out = static_cast<uint4*>(ws.tables.p) + pos;
      s.width = bw, s.height = bh, s.channels = 4, s.dtype = wide ? DType::RGBA16 : DType::RGBA8,
      s.stream = a.stream;
      a.sat->sat(s);
      tp[j][k] = static_cast<const uint4*>(s.out);
    }
  }
  // With layers, the composite also fills the background hidden behind near layers, by normalised
  // convolution from the same tables: one phase.
  stage(setup.layers > 1 ? "composite+fill" : "composite");
  const auto* rects = static_cast<const dof::Rect*>(ws.rects.p);
  const auto* rect_counts = reinterpret_cast<const uint8_t*>(static_cast<const char*>(ws.rects.p) + rect_bytes);
  auto fill = [&](auto& t) {
    for (int j = 0; j < setup.layers; ++j) {
      t.lo[j] = tp[j][0], t.hi[j] = tp[j][1];
      t.ox[j] = bx[j][0], t.oy[j] = bx[j][1], t.x1[j] = bx[j][2], t.y1[j] = bx[j][3],
      t.pitch[j] = boxes.bw[j];
    }
  };
  const auto* enc = static_cast<const uint8_t*>(ws.luts.p) + 512;
  const auto* image = static_cast<const uchar4*>(a.image);
  auto* out = static_cast<uchar4*>(a.out);
  auto go = [&](auto t) {
    fill(t);
    launch_composite(t, grid, block, st, layers, crop && !given ? means : nullptr, rects, rect_counts, max_r,
                     setup.linear, enc, image, coc, w, h, out);
  };
  const bool hi = !wide && setup.linear;  // two RGBA8 tables per layer
  if (crop)
    hi ? go(Tables<true, true>{}) : go(Tables<true, false>{});
  else
    hi ? go(Tables<false, true>{}) : go(Tables<false, false>{});
  SATLAB_LAUNCHED("composite_kernel", size);
}

}  // namespace satlab::gpu
