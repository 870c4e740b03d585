// The spread DoF mode on the GPU (core/dof_spread.hpp; CPU reference dof_spread_blur, per-pixel arithmetic
// shared through core/dof_spread_pixel.hpp, this file built without FMA contraction so that both agree bit
// for bit). Stages, each reported through DofArgs::stage:
//   spread     every pixel adds its splat's signed corner deltas (uint32 atomics: exact and order-free)
//              into the delta image of its depth layer (4 channels: colour, weight);
//   planes     each delta image as its four byte planes, RGBA8 each; and the fill tables' slices: per layer
//              t < count - 1 the (12-bit linear colour, 1) image of the pixels of layers 0..t as low and
//              high bytes (as the layered mode's);
//   sat        every plane through the registry's SAT builder: a delta image's SAT is
//              sum_k 2^8k SAT(plane k) in wrap-around uint32 (SATs are linear), exactly the CPU's uint32 SAT;
//   composite  dof::spread_pixel per pixel: the spread sums read at the pixel itself (4 tables per layer),
//              the fill's box taps from the fill tables.
// Bytes (minimum, per pixel and layer): spread writes 16 (the atomics' traffic is more); planes reads 16
// and writes 16; each of the 4 SATs reads 4 and writes 16; composite reads 64. The fill tables add 8 + 2 x 20
// per layer but the last, and the composite's few box taps.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/dof.hpp"
#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

constexpr int kBlock = 256;

__global__ void __launch_bounds__(kBlock)
    spread_kernel(const uchar4* __restrict__ img, const float* __restrict__ coc, int w, int h,
                  dof::Layers layers, int max_r, const dof::Rect* __restrict__ rects,
                  const uint8_t* __restrict__ counts, const uint16_t* __restrict__ lin,
                  uint32_t* __restrict__ deltas) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const size_t n = size_t(w) * size_t(h), i = size_t(y) * size_t(w) + size_t(x);
  const float c = __ldg(coc + i);
  const int j = dof::layer_of(c == c ? c : 0.f, layers);
  uint32_t* d = deltas + size_t(j) * n * 4;
  const dof::Splat s = dof::splat_of(c, max_r);
  const uchar4 p = img[i];
  const uint32_t l[3] = {__ldg(lin + p.x), __ldg(lin + p.y), __ldg(lin + p.z)};
  for (int a = 0; a < 2; ++a) {
    const uint32_t part = a ? s.q : 256u - s.q;
    if (!part) continue;
    const int r = s.r + a;
    const dof::Rect* rr = rects + r * dof::kMaxRects;
    const int nr = __ldg(counts + r);
    uint32_t v[4];
    dof::splat_values(l, dof::splat_weight(part, dof::clipped_area(rr, nr, x, y, w, h)), v);
    dof::splat_corners(
        [&](int X, int Y, int sign) {
          uint32_t* o = d + (size_t(Y) * size_t(w) + size_t(X)) * 4;
          for (int k = 0; k < 4; ++k) atomicAdd(o + k, sign > 0 ? v[k] : 0u - v[k]);
        },
        rr, nr, x, y, w, h);
  }
}

// Plane 4j + k of layer j: byte k of its delta image's 4 channels. Fill slices 2t (low bytes) and 2t + 1
// (high bytes) of table t < count - 1.
__global__ void __launch_bounds__(kBlock)
    planes_kernel(const uint4* __restrict__ deltas, const uchar4* __restrict__ img,
                  const float* __restrict__ coc, size_t n, dof::Layers layers,
                  const uint16_t* __restrict__ lin, uchar4* __restrict__ planes,
                  uchar4* __restrict__ slices) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < layers.count; ++j) {
    const uint4 d = deltas[size_t(j) * n + i];
    for (int k = 0; k < 4; ++k) {
      const int s = 8 * k;
      planes[size_t(4 * j + k) * n + i] =
          make_uchar4((d.x >> s) & 255u, (d.y >> s) & 255u, (d.z >> s) & 255u, (d.w >> s) & 255u);
    }
  }
  if (layers.count < 2) return;
  float c = __ldg(coc + i);
  c = c == c ? c : 0.f;
  const int own = dof::layer_of(c, layers);
  const uchar4 p = img[i];
  const uint32_t v[3] = {__ldg(lin + p.x), __ldg(lin + p.y), __ldg(lin + p.z)};
  const uchar4 lo = make_uchar4(v[0] & 255u, v[1] & 255u, v[2] & 255u, 1),
               hi = make_uchar4(v[0] >> 8, v[1] >> 8, v[2] >> 8, 0), zero = make_uchar4(0, 0, 0, 0);
  for (int t = 0; t + 1 < layers.count; ++t) {
    slices[size_t(2 * t) * n + i] = own <= t ? lo : zero;
    slices[size_t(2 * t + 1) * n + i] = own <= t ? hi : zero;
  }
}

struct SpreadTables {
  const uint4* plane[dof::kMaxLayers][4];
  const uint4* lo[dof::kMaxLayers];  // fill tables
  const uint4* hi[dof::kMaxLayers];
  int width;
  // The fill tables' tap (dof::shape_sum): table t's (colour, count) SAT at (x, y).
  __device__ __forceinline__ dof::Sum4 operator()(int t, int x, int y) const {
    dof::Sum4 s = {{0u, 0u, 0u, 0u}};
    if (x < 0 || y < 0) return s;
    const size_t i = size_t(y) * size_t(width) + size_t(x);
    const uint4 a = __ldg(lo[t] + i), b = __ldg(hi[t] + i);
    s.c[0] = a.x + (b.x << 8), s.c[1] = a.y + (b.y << 8), s.c[2] = a.z + (b.z << 8),
    s.c[3] = a.w + (b.w << 8);
    return s;
  }
};

__global__ void __launch_bounds__(kBlock)
    spread_composite_kernel(SpreadTables tables, dof::Layers layers, const uint8_t* __restrict__ enc,
                            const uchar4* __restrict__ img, int w, int h, uchar4* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const size_t i = size_t(y) * size_t(w) + size_t(x);
  const auto spread = [&](int j) {
    dof::Sum4 s = {{0u, 0u, 0u, 0u}};
    for (int k = 0; k < 4; ++k) {
      const uint4 a = __ldg(tables.plane[j][k] + i);
      const int sh = 8 * k;
      s.c[0] += a.x << sh, s.c[1] += a.y << sh, s.c[2] += a.z << sh, s.c[3] += a.w << sh;
    }
    return s;
  };
  float v[3];
  dof::spread_pixel(spread, tables, layers.count, layers.edge, x, y, w, h, v);
  out[i] = make_uchar4(dof::encode(v[0], true, enc), dof::encode(v[1], true, enc),
                       dof::encode(v[2], true, enc), img[i].w);
}

void grow(DofBuffer& b, size_t bytes, const char* what) {
  if (b.bytes >= bytes) return;
  b.release();
  SATLAB_CUDA(cudaMalloc(&b.p, bytes),
              std::string("allocation of ") + std::to_string(bytes >> 20) + " MiB for " + what);
  b.bytes = bytes;
}

}  // namespace

// The workspace's buffers as the shaped modes lay them out (aperture rectangles then their counts; the
// sRGB -> linear table then the linear -> sRGB one), under the same shape key, so either mode may find
// them uploaded by the other; `images` holds the deltas, planes and slices, `tables` the SATs.
void dof_spread(const DofArgs& a) {
  const Params& p = *a.params;
  auto& ws = *static_cast<DofWorkspace*>(a.workspace);
  const cudaStream_t st = cudaStream_t(a.stream);
  const int w = a.width, h = a.height, max_r = shaped_max_radius(p);
  const size_t n = size_t(w) * size_t(h);
  const dof::Layers layers = make_layers(p, p.dof_layers);
  const int L = layers.count, fills = L - 1, planes = 4 * L, sats = planes + 2 * fills;
  const std::string size = std::to_string(w) + "x" + std::to_string(h);
  auto stage = [&](const char* s) {
    if (a.stage) a.stage(s);
  };

  const std::string key = std::string(to_string(p.aperture_shape)) + "/" + std::to_string(p.blades) + "/" +
                          std::to_string(p.blade_rotation) + "/" + std::to_string(max_r);
  const size_t rect_bytes = size_t(dof::kMaxShapedRadius + 1) * dof::kMaxRects * sizeof(dof::Rect);
  grow(ws.rects, rect_bytes + dof::kMaxShapedRadius + 1, "aperture rectangles");
  grow(ws.luts, 256 * sizeof(uint16_t) + dof::kLinearOne + 1, "transfer tables");
  if (key != ws.shape_key) {
    const ApertureTable t = aperture_table(p, max_r);
    SATLAB_CUDA(cudaMemcpyAsync(ws.rects.p, t.rects.data(), t.rects.size() * sizeof(dof::Rect),
                                cudaMemcpyHostToDevice, st),
                "aperture rectangles");
    SATLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(ws.rects.p) + rect_bytes, t.counts.data(), t.counts.size(),
                                cudaMemcpyHostToDevice, st),
                "aperture rectangles");
    SATLAB_CUDA(
        cudaMemcpyAsync(ws.luts.p, srgb_to_linear12(), 256 * sizeof(uint16_t), cudaMemcpyHostToDevice, st),
        "transfer tables");
    SATLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(ws.luts.p) + 512, linear12_to_srgb(), dof::kLinearOne + 1,
                                cudaMemcpyHostToDevice, st),
                "transfer tables");
    SATLAB_CUDA(cudaStreamSynchronize(st), "aperture upload");  // the host tables are temporaries
    ws.shape_key = key;
  }
  // images: deltas (16 B per pixel and layer), planes (4 B each), fill slices (4 B each).
  const size_t delta_bytes = n * 16 * size_t(L), plane_bytes = n * 4 * size_t(planes);
  grow(ws.images, delta_bytes + plane_bytes + n * 4 * size_t(2 * fills), "spread deltas and planes");
  grow(ws.tables, n * 16 * size_t(sats), "spread tables");
  const auto* rects = static_cast<const dof::Rect*>(ws.rects.p);
  const auto* rect_counts =
      reinterpret_cast<const uint8_t*>(static_cast<const char*>(ws.rects.p) + rect_bytes);
  const auto* lin = static_cast<const uint16_t*>(ws.luts.p);
  const auto* coc = static_cast<const float*>(a.coc);
  const auto* img = static_cast<const uchar4*>(a.image);
  auto* deltas = static_cast<uint32_t*>(ws.images.p);
  auto* plane_images = reinterpret_cast<uchar4*>(static_cast<char*>(ws.images.p) + delta_bytes);
  auto* slices = plane_images + size_t(planes) * n;
  const dim3 block(32, 8), grid((unsigned(w) + 31) / 32, (unsigned(h) + 7) / 8);

  stage("spread");
  SATLAB_CUDA(cudaMemsetAsync(deltas, 0, delta_bytes, st), "spread deltas");
  spread_kernel<<<grid, block, 0, st>>>(img, coc, w, h, layers, max_r, rects, rect_counts, lin, deltas);
  SATLAB_LAUNCHED("spread_kernel", size);
  stage("planes");
  planes_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, st>>>(
      reinterpret_cast<const uint4*>(deltas), img, coc, n, layers, lin, plane_images, slices);
  SATLAB_LAUNCHED("planes_kernel", size);
  stage("sat");
  SpreadTables tables{};
  tables.width = w;
  for (int k = 0; k < sats; ++k) {
    SatArgs s;
    s.in = k < planes ? plane_images + size_t(k) * n : slices + size_t(k - planes) * n;
    s.out = static_cast<uint4*>(ws.tables.p) + size_t(k) * n;
    s.width = w, s.height = h, s.channels = 4, s.dtype = DType::RGBA8, s.stream = a.stream;
    a.sat->sat(s);
    const auto* t = static_cast<const uint4*>(s.out);
    if (k < planes)
      tables.plane[k / 4][k % 4] = t;
    else if ((k - planes) % 2 == 0)
      tables.lo[(k - planes) / 2] = t;
    else
      tables.hi[(k - planes) / 2] = t;
  }
  stage("composite");
  spread_composite_kernel<<<grid, block, 0, st>>>(
      tables, layers, static_cast<const uint8_t*>(ws.luts.p) + 512, img, w, h, static_cast<uchar4*>(a.out));
  SATLAB_LAUNCHED("spread_composite_kernel", size);
}

}  // namespace satlab::gpu
