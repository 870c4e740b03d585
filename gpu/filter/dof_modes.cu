// The shaped, linear-light and layered depth-of-field modes on the GPU (core/dof_modes.hpp; CPU reference
// core/dof.cpp's dof_shaped_blur, per-pixel arithmetic shared through core/dof_pixel.hpp, this file built
// without FMA contraction so that both agree bit for bit).
// Stages, each reported through DofArgs::stage:
//   layers     per-layer CoC sums (block-local shared-memory sums, one atomic per layer and block) and
//              means (layered mode only);
//   slice      per layer j the (colour, 1) image of the pixels of layer j as RGBA8: colour low bytes,
//              and for linear light (12-bit values) a second image of the high bytes;
//   sat        the tables through the registry's SAT builder: the table of 12-bit values is
//              SAT(low) + 256 SAT(high), exact in wrap-around uint32 because SATs are linear;
//   composite  dof::layered_pixel per pixel, its taps reading both tables of a layer (the count taps of
//              the emptiness tests one 4-byte channel of the low table: the high table's count is 0).
// Bytes (minimum, per pixel): slice reads 8 and writes 4 per image; each SAT 20; composite reads the
// tables' 16 B per image once and the CoC, writes 4.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "gpu/check.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {
namespace {

constexpr int kBlock = 256;

// Each thread sums its pixels per layer in registers; warps reduce them with shuffles and lane 0 adds the
// warp's sums to the block's, one shared atomic per layer and warp (per-pixel shared atomics on 8 counters
// took 0.59 ms at 3840x2160).
__global__ void __launch_bounds__(kBlock)
    layer_sums_kernel(const float* __restrict__ coc, size_t n, dof::Layers layers,
                      unsigned long long* __restrict__ sums, unsigned* __restrict__ counts) {
  __shared__ unsigned long long s_sum[dof::kMaxLayers];
  __shared__ unsigned s_count[dof::kMaxLayers];
  if (threadIdx.x < dof::kMaxLayers) s_sum[threadIdx.x] = 0, s_count[threadIdx.x] = 0;
  __syncthreads();
  long long sum[dof::kMaxLayers] = {};
  unsigned count[dof::kMaxLayers] = {};
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float c = __ldg(coc + i);
    c = c == c ? c : 0.f;
    const int j = dof::layer_of(c, layers);
    const long long v = __float2ll_rn(c * 256.f);
#pragma unroll
    for (int k = 0; k < dof::kMaxLayers; ++k)
      if (k == j) sum[k] += v, ++count[k];
  }
#pragma unroll
  for (int k = 0; k < dof::kMaxLayers; ++k) {
    long long sk = sum[k];
    unsigned ck = count[k];
    for (int o = 16; o > 0; o >>= 1) sk += __shfl_down_sync(0xffffffffu, sk, o), ck += __shfl_down_sync(0xffffffffu, ck, o);
    if ((threadIdx.x & 31) == 0 && ck) {
      atomicAdd(&s_sum[k], (unsigned long long)sk);  // two's complement: wraps to the signed sum
      atomicAdd(&s_count[k], ck);
    }
  }
  __syncthreads();
  if (threadIdx.x < layers.count && s_count[threadIdx.x]) {
    atomicAdd(&sums[threadIdx.x], s_sum[threadIdx.x]);
    atomicAdd(&counts[threadIdx.x], s_count[threadIdx.x]);
  }
}

__global__ void layer_means_kernel(const unsigned long long* sums, const unsigned* counts, dof::Layers layers,
                                   float* means) {
  dof::layer_means(reinterpret_cast<const long long*>(sums), counts, layers);
  for (int j = 0; j < layers.count; ++j) means[j] = layers.mean_coc[j];
}

// Images 2j (low bytes) and 2j+1 (high bytes, linear light only) of layer j, RGBA8 each.
__global__ void __launch_bounds__(kBlock)
    slice_kernel(const uchar4* __restrict__ img, const float* __restrict__ coc, size_t n, dof::Layers layers,
                 bool linear, const uint16_t* __restrict__ lin,
                 uchar4* __restrict__ out) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float c = __ldg(coc + i);
  c = c == c ? c : 0.f;
  const int own = dof::layer_of(c, layers);
  const uchar4 p = img[i];
  uint32_t v[3] = {p.x, p.y, p.z};
  if (linear)
    for (int k = 0; k < 3; ++k) v[k] = __ldg(lin + v[k]);
  const uchar4 lo = make_uchar4(v[0] & 255u, v[1] & 255u, v[2] & 255u, 1), hi = make_uchar4(v[0] >> 8, v[1] >> 8, v[2] >> 8, 0),
               zero = make_uchar4(0, 0, 0, 0);
  const int images = linear ? 2 : 1;
  for (int j = 0; j < layers.count; ++j) {
    out[size_t(j * images) * n + i] = own == j ? lo : zero;
    if (linear) out[size_t(j * images + 1) * n + i] = own == j ? hi : zero;
  }
}

struct Tables {
  const uint4* lo[dof::kMaxLayers];
  const uint4* hi[dof::kMaxLayers];  // null without linear light
  int width;
  __device__ __forceinline__ dof::Sum4 operator()(int t, int x, int y) const {
    dof::Sum4 s = {{0u, 0u, 0u, 0u}};
    if (x < 0 || y < 0) return s;
    const size_t i = size_t(y) * size_t(width) + size_t(x);
    const uint4 a = __ldg(lo[t] + i);
    s.c[0] = a.x, s.c[1] = a.y, s.c[2] = a.z, s.c[3] = a.w;
    if (hi[t]) {
      const uint4 b = __ldg(hi[t] + i);
      s.c[0] += b.x << 8, s.c[1] += b.y << 8, s.c[2] += b.z << 8, s.c[3] += b.w << 8;
    }
    return s;
  }
  // The count channel: the low table's (the high image's fourth byte is 0).
  __device__ __forceinline__ uint32_t count(int t, int x, int y) const {
    if (x < 0 || y < 0) return 0u;
    return __ldg(reinterpret_cast<const uint32_t*>(lo[t] + size_t(y) * size_t(width) + size_t(x)) + 3);
  }
};

__global__ void __launch_bounds__(kBlock)
    composite_kernel(Tables tables, dof::Layers layers, const float* __restrict__ means,
                     const dof::Rect* __restrict__ rects, const uint8_t* __restrict__ counts, int max_r, bool linear,
                     const uint8_t* __restrict__ enc, const uchar4* __restrict__ img, const float* __restrict__ coc,
                     int w, int h, uchar4* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (means)
    for (int j = 0; j < layers.count; ++j) layers.mean_coc[j] = __ldg(means + j);
  const size_t i = size_t(y) * size_t(w) + size_t(x);
  float v[3];
  dof::layered_pixel(tables, layers, rects, counts, max_r, linear ? float(dof::kLinearOne) : 255.f, x, y, w, h,
                     __ldg(coc + i), v);
  out[i] = make_uchar4(dof::encode(v[0], linear, enc), dof::encode(v[1], linear, enc),
                       dof::encode(v[2], linear, enc), img[i].w);
}

// Table = low + 256 high, in place in the low table (exact in wrap-around uint32): taps then read one
// table. Measured against two-table taps (SATLAB_DOF_COMBINE=1); see docs/performance.md.
__global__ void __launch_bounds__(kBlock) combine_kernel(uint4* __restrict__ lo, const uint4* __restrict__ hi, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  uint4 a = lo[i];
  const uint4 b = __ldg(hi + i);
  a.x += b.x << 8, a.y += b.y << 8, a.z += b.z << 8, a.w += b.w << 8;
  lo[i] = a;
}

bool env_combine() {
  static const bool c = [] {
    const char* e = std::getenv("SATLAB_DOF_COMBINE");
    return e && std::string(e) == "1";
  }();
  return c;
}

dim3 env_block() {
  static const dim3 b = [] {
    unsigned x = 32, y = 8;
    if (const char* e = std::getenv("SATLAB_DOF_BLOCK")) {
      if (std::sscanf(e, "%ux%u", &x, &y) != 2 || x * y == 0 || x * y > kBlock) x = 32, y = 8;
    }
    return dim3(x, y);
  }();
  return b;
}

void grow(DofBuffer& b, size_t bytes, const char* what) {
  if (b.bytes >= bytes) return;
  b.release();
  SATLAB_CUDA(cudaMalloc(&b.p, bytes), std::string("allocation of ") + std::to_string(bytes >> 20) + " MiB for " + what);
  b.bytes = bytes;
}

}  // namespace

void DofBuffer::release() {
  if (p) cudaFree(p);
  p = nullptr, bytes = 0;
}

DofWorkspace::~DofWorkspace() {
  for (DofBuffer* b : {&images, &tables, &stats, &rects, &luts}) b->release();
}

void dof_shaped(const DofArgs& a) {
  const Params& p = *a.params;
  const DofSetup setup = dof_setup(p);
  auto& ws = *static_cast<DofWorkspace*>(a.workspace);
  const cudaStream_t st = cudaStream_t(a.stream);
  const int w = a.width, h = a.height, max_r = shaped_max_radius(p);
  const size_t n = size_t(w) * size_t(h);
  const int images = setup.linear ? 2 : 1, count = setup.layers * images;
  const std::string size = std::to_string(w) + "x" + std::to_string(h);
  auto stage = [&](const char* s) {
    if (a.stage) a.stage(s);
  };

  // Aperture rectangles and transfer tables: uploaded when the shape changes.
  const std::string key = std::string(to_string(p.aperture_shape)) + "/" + std::to_string(p.blades) + "/" +
                          std::to_string(p.blade_rotation) + "/" + std::to_string(max_r);
  const size_t rect_bytes = size_t(dof::kMaxShapedRadius + 1) * dof::kMaxRects * sizeof(dof::Rect);
  grow(ws.rects, rect_bytes + dof::kMaxShapedRadius + 1, "aperture rectangles");
  grow(ws.luts, 256 * sizeof(uint16_t) + dof::kLinearOne + 1, "transfer tables");
  grow(ws.stats, dof::kMaxLayers * (sizeof(unsigned long long) + sizeof(unsigned) + sizeof(float)), "layer sums");
  if (key != ws.shape_key) {
    const ApertureTable t = aperture_table(p, max_r);
    SATLAB_CUDA(cudaMemcpyAsync(ws.rects.p, t.rects.data(), t.rects.size() * sizeof(dof::Rect),
                                cudaMemcpyHostToDevice, st), "aperture rectangles");
    SATLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(ws.rects.p) + rect_bytes, t.counts.data(), t.counts.size(),
                                cudaMemcpyHostToDevice, st), "aperture rectangles");
    SATLAB_CUDA(cudaMemcpyAsync(ws.luts.p, srgb_to_linear12(), 256 * sizeof(uint16_t), cudaMemcpyHostToDevice, st),
                "transfer tables");
    SATLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(ws.luts.p) + 512, linear12_to_srgb(), dof::kLinearOne + 1,
                                cudaMemcpyHostToDevice, st), "transfer tables");
    SATLAB_CUDA(cudaStreamSynchronize(st), "aperture upload");  // the host tables are temporaries
    ws.shape_key = key;
  }
  grow(ws.images, n * 4 * size_t(count), "DoF layer images");
  grow(ws.tables, n * 16 * size_t(count), "DoF layer tables");

  dof::Layers layers = make_layers(p, setup.layers);
  auto* sums = static_cast<unsigned long long*>(ws.stats.p);
  auto* counts = reinterpret_cast<unsigned*>(sums + dof::kMaxLayers);
  auto* means = reinterpret_cast<float*>(counts + dof::kMaxLayers);
  const auto* coc = static_cast<const float*>(a.coc);
  if (setup.layers > 1) {
    stage("layers");
    SATLAB_CUDA(cudaMemsetAsync(ws.stats.p, 0, dof::kMaxLayers * (sizeof(unsigned long long) + sizeof(unsigned)), st),
                "layer sums");
    const unsigned blocks = unsigned(std::min<size_t>((n + kBlock - 1) / kBlock, 132 * 16));
    layer_sums_kernel<<<blocks, kBlock, 0, st>>>(coc, n, layers, sums, counts);
    SATLAB_LAUNCHED("layer_sums_kernel", size);
    layer_means_kernel<<<1, 1, 0, st>>>(sums, counts, layers, means);
    SATLAB_LAUNCHED("layer_means_kernel", size);
  }
  stage("slice");
  auto* imgs = static_cast<uchar4*>(ws.images.p);
  slice_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, st>>>(
      static_cast<const uchar4*>(a.image), coc, n, layers, setup.linear,
      static_cast<const uint16_t*>(ws.luts.p), imgs);
  SATLAB_LAUNCHED("slice_kernel", size);
  stage("sat");
  Tables tables{};
  tables.width = w;
  for (int k = 0; k < count; ++k) {
    SatArgs s;
    s.in = imgs + size_t(k) * n, s.out = static_cast<uint4*>(ws.tables.p) + size_t(k) * n;
    s.width = w, s.height = h, s.channels = 4, s.dtype = DType::RGBA8, s.stream = a.stream;
    a.sat->sat(s);
    const auto* t = static_cast<const uint4*>(s.out);
    if (k % images == 0)
      tables.lo[k / images] = t;
    else
      tables.hi[k / images] = t;
  }
  if (setup.linear && env_combine()) {
    stage("combine");
    for (int j = 0; j < setup.layers; ++j) {
      combine_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, st>>>(const_cast<uint4*>(tables.lo[j]),
                                                                            tables.hi[j], n);
      SATLAB_LAUNCHED("combine_kernel", size);
      tables.hi[j] = nullptr;
    }
  }
  stage("composite");
  const dim3 block = env_block(), grid((unsigned(w) + block.x - 1) / block.x, (unsigned(h) + block.y - 1) / block.y);
  const auto* rects = static_cast<const dof::Rect*>(ws.rects.p);
  const auto* rect_counts = reinterpret_cast<const uint8_t*>(static_cast<const char*>(ws.rects.p) + rect_bytes);
  composite_kernel<<<grid, block, 0, st>>>(tables, layers, setup.layers > 1 ? means : nullptr, rects, rect_counts,
                                           max_r, setup.linear,
                                           static_cast<const uint8_t*>(ws.luts.p) + 512,
                                           static_cast<const uchar4*>(a.image), coc, w, h,
                                           static_cast<uchar4*>(a.out));
  SATLAB_LAUNCHED("composite_kernel", size);
}

}  // namespace satlab::gpu
