// GPU subject selection: core/select.hpp's stages on the device (see select_gpu.hpp). Integer arithmetic
// from core/select_pixel.hpp throughout but the matte's guided filter.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/block/block_scan.cuh>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/select.hpp"
#include "core/select_pixel.hpp"
#include "gpu/check.hpp"
#include "gpu/depth/guided_filter_gpu.hpp"
#include "gpu/sat/sat.hpp"
#include "gpu/select/select_run.hpp"

namespace satlab::gpu::select_detail {

using namespace satlab::select;

namespace {

constexpr int kThreads = 256;
constexpr int kItems = kMaxWorkSide / kThreads;  // one line of the working image per block

__global__ void work_image_kernel(const uchar4* img, int W, int H, int s, int w, int h, uint8_t* rgb) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i >= w || j >= h) return;
  const int x1 = min((i + 1) * s, W), y1 = min((j + 1) * s, H);
  uint32_t sum[3] = {0, 0, 0};
  for (int y = j * s; y < y1; ++y)
    for (int x = i * s; x < x1; ++x) {
      const uchar4 p = img[size_t(y) * size_t(W) + size_t(x)];
      sum[0] += p.x, sum[1] += p.y, sum[2] += p.z;
    }
  const uint32_t n = uint32_t((x1 - i * s) * (y1 - j * s));
  uint8_t* o = rgb + (size_t(j) * size_t(w) + size_t(i)) * 3;
  for (int c = 0; c < 3; ++c) o[c] = cell_mean(sum[c], n);
}

__global__ void edge_costs_kernel(const uint8_t* rgb, int w, int h, int edge_floor, uint32_t* ch, uint32_t* cv) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i >= w || j >= h) return;
  const size_t k = size_t(j) * size_t(w) + size_t(i);
  ch[k] = i > 0 ? step_cost(rgb + (k - 1) * 3, rgb + k * 3, edge_floor) : kGeoInf;
  cv[k] = j > 0 ? step_cost(rgb + (k - size_t(w)) * 3, rgb + k * 3, edge_floor) : kGeoInf;
}

// The (steps, distance) pairs of a pass: a then b gives (a.e + b.e, min(a.d + b.e, b.d)); associative
// under saturating addition, with identity (0, inf).
struct Pair {
  uint32_t e, d;
};
struct PairOp {
  __device__ Pair operator()(const Pair& a, const Pair& b) const {
    const uint32_t via = sat_add(a.d, b.e);
    return {sat_add(a.e, b.e), via < b.d ? via : b.d};
  }
};

// One block a line: element t of the pass is index (reverse ? len - 1 - t : t) of the line, its step the
// one from the element before it in pass order.
__global__ void __launch_bounds__(kThreads) line_pass_kernel(uint32_t* d, const uint32_t* cost, int len,
                                                             size_t line_stride, size_t elem_stride, bool reverse) {
  using Scan = cub::BlockScan<Pair, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  uint32_t* line = d + size_t(blockIdx.x) * line_stride;
  const uint32_t* c = cost + size_t(blockIdx.x) * line_stride;
  Pair items[kItems];
#pragma unroll
  for (int q = 0; q < kItems; ++q) {
    const int t = threadIdx.x * kItems + q;
    if (t < len) {
      const int idx = reverse ? len - 1 - t : t;
      const uint32_t step = t == 0 ? 0u : c[size_t(reverse ? idx + 1 : idx) * elem_stride];
      items[q] = {step, line[size_t(idx) * elem_stride]};
    } else {
      items[q] = {0u, kGeoInf};
    }
  }
  Scan(tmp).InclusiveScan(items, items, PairOp());
#pragma unroll
  for (int q = 0; q < kItems; ++q) {
    const int t = threadIdx.x * kItems + q;
    if (t < len) line[size_t(reverse ? len - 1 - t : t) * elem_stride] = items[q].d;
  }
}

__global__ void samples_kernel(const uint8_t* rgb, const uint32_t* reach, int w, int h, uint32_t edge,
                               const Click* clicks, int nclicks, int radius, uint32_t* subject_hist,
                               uint32_t* background_hist, uint8_t* seed, uint32_t* seeds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i >= w || j >= h) return;
  const size_t k = size_t(j) * size_t(w) + size_t(i);
  const SampleKind kind = sample_kind(i, j, w, h, reach[k], edge, clicks, nclicks, radius);
  const int bin = colour_bin(rgb + k * 3);
  if (kind.subject_sample) atomicAdd(subject_hist + bin, 1u);
  if (kind.background_sample) atomicAdd(background_hist + bin, 1u);
  seed[k] = kind.background_seed;
  if (kind.background_seed) atomicAdd(seeds, 1u);
}

__global__ void soft_seeds_kernel(const uint8_t* rgb, const uint8_t* seed, int n, const uint32_t* subject_cost,
                                  const uint32_t* background_cost, uint32_t* ds, uint32_t* db) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int bin = colour_bin(rgb + size_t(k) * 3);
  ds[k] = subject_cost[bin];
  db[k] = seed[k] ? 0u : background_cost[bin];
}

__global__ void set_clicks_kernel(uint32_t* d, int w, const Click* clicks, int nclicks, const uint8_t* require) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nclicks || clicks[c].background) return;
  const size_t k = size_t(clicks[c].y) * size_t(w) + size_t(clicks[c].x);
  if (!require || require[k]) d[k] = 0;
}

__global__ void fill_kernel(uint32_t* d, int n, uint32_t v) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) d[k] = v;
}

__global__ void label_kernel(const uint32_t* a, const uint32_t* b, uint32_t threshold, int n, uint8_t* label) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  label[k] = b ? a[k] < b[k] : a[k] < threshold;
}

__global__ void connect_costs_kernel(const uint8_t* label, int w, int h, uint32_t* ch, uint32_t* cv) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i >= w || j >= h) return;
  const size_t k = size_t(j) * size_t(w) + size_t(i);
  ch[k] = i > 0 && label[k] && label[k - 1] ? 1u : kGeoInf;
  cv[k] = j > 0 && label[k] && label[k - size_t(w)] ? 1u : kGeoInf;
}

__global__ void reached_kernel(const uint32_t* d, int n, uint8_t* label) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) label[k] = d[k] != kGeoInf;
}

// Full resolution: the label (nearest cell) as the guided filter's p and as a u8 mask for its SAT, and the
// guide (RGB / 255).
__global__ void full_label_kernel(const uint8_t* label, const uchar4* img, int W, int H, int s, int w, float* p,
                                  uint8_t* mask, float* guide) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= W || y >= H) return;
  const size_t k = size_t(y) * size_t(W) + size_t(x);
  const uint8_t v = label[size_t(y / s) * size_t(w) + size_t(x / s)];
  p[k] = float(v), mask[k] = v;
  const uchar4 c = img[k];
  guide[k * 3 + 0] = float(c.x) / 255.f, guide[k * 3 + 1] = float(c.y) / 255.f, guide[k * 3 + 2] = float(c.z) / 255.f;
}

__device__ uint32_t sat_at(const uint32_t* sat, int W, int x, int y) {  // inclusive; x or y = -1: 0
  return x < 0 || y < 0 ? 0u : sat[size_t(y) * size_t(W) + size_t(x)];
}

__global__ void matte_kernel(const uint32_t* sat, const float* p, const float* q, int W, int H, int r, float* alpha) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= W || y >= H) return;
  const int ax = max(0, x - r) - 1, ay = max(0, y - r) - 1, bx = min(W, x + r + 1) - 1, by = min(H, y + r + 1) - 1;
  const uint32_t sum = sat_at(sat, W, bx, by) - sat_at(sat, W, ax, by) - sat_at(sat, W, bx, ay) + sat_at(sat, W, ax, ay);
  const uint32_t area = uint32_t((bx - ax) * (by - ay));
  const size_t k = size_t(y) * size_t(W) + size_t(x);
  alpha[k] = sum > 0 && sum < area ? fminf(fmaxf(q[k], 0.f), 1.f) : p[k];
}

unsigned blocks(size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

}  // namespace

void geodesic_passes_gpu(uint32_t* d, int w, int h, const uint32_t* ch, const uint32_t* cv, int iterations,
                         cudaStream_t s) {
  for (int it = 0; it < iterations; ++it) {
    for (bool rev : {false, true}) {
      line_pass_kernel<<<h, kThreads, 0, s>>>(d, ch, w, size_t(w), 1, rev);
      SATLAB_LAUNCHED("line_pass_kernel rows", std::to_string(w) + "x" + std::to_string(h));
    }
    for (bool rev : {false, true}) {
      line_pass_kernel<<<w, kThreads, 0, s>>>(d, cv, h, 1, size_t(w), rev);
      SATLAB_LAUNCHED("line_pass_kernel columns", std::to_string(w) + "x" + std::to_string(h));
    }
  }
}

void select_geodesic(const SelectArgs& a) {
  if (!a.clicks || !a.params) throw Error("select: no clicks or parameters");
  const SelectParams& p = *a.params;
  validate(p);
  const int W = a.width, H = a.height;
  if (W < 1 || H < 1) throw Error("select: empty image");
  if (std::none_of(a.clicks->begin(), a.clicks->end(), [](const SelectClick& c) { return !c.background; }))
    throw Error("select: no click on a subject");
  cudaStream_t s = static_cast<cudaStream_t>(a.stream);
  auto phase = [&](const char* name) {
    if (a.phase) a.phase(name);
  };
  const int sc = select_scale(W, H, p.work_side);
  const int w = (W + sc - 1) / sc, h = (H + sc - 1) / sc;
  const size_t n = size_t(w) * size_t(h), N = size_t(W) * size_t(H);
  const std::string ctx = std::to_string(W) + "x" + std::to_string(H) + " (work " + std::to_string(w) + "x" +
                          std::to_string(h) + ")";
  const std::vector<Click> all = work_clicks(*a.clicks, sc, w, h);
  // Scratch: rgb, ch, cv, reach/ds, db, seed, label, histograms + count, clicks, model costs.
  Scratch rgb(n * 3, s), ch(n * 4, s), cv(n * 4, s), d1(n * 4, s), d2(n * 4, s), seed(n, s), label(n, s);
  Scratch hist((2 * kBins + 1) * 4, s), clicks(all.size() * sizeof(Click), s), costs(2 * kBins * 4, s);
  const dim3 grid(blocks(size_t(w)), unsigned(h));

  phase("work image");
  work_image_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uchar4*>(a.image), W, H, sc, w, h, rgb.as<uint8_t>());
  SATLAB_LAUNCHED("work_image_kernel", ctx);
  edge_costs_kernel<<<grid, kThreads, 0, s>>>(rgb.as<uint8_t>(), w, h, p.edge_floor, ch.as<uint32_t>(), cv.as<uint32_t>());
  SATLAB_LAUNCHED("edge_costs_kernel", ctx);

  const uint32_t edge = uint32_t(p.edge_threshold) * kEdgeWeight;
  const std::vector<Click> wc = resolve_clicks(all, edge, [&](size_t i) {
    fill_kernel<<<blocks(n), kThreads, 0, s>>>(d1.as<uint32_t>(), int(n), kGeoInf);
    SATLAB_LAUNCHED("fill_kernel", ctx);
    const uint32_t zero = 0;
    SATLAB_CUDA(cudaMemcpyAsync(d1.as<uint32_t>(size_t(all[i].y) * size_t(w) + size_t(all[i].x)), &zero, 4,
                                cudaMemcpyHostToDevice, s), ctx);
    geodesic_passes_gpu(d1.as<uint32_t>(), w, h, ch.as<uint32_t>(), cv.as<uint32_t>(), p.iterations, s);
    std::vector<uint32_t> at(all.size());
    for (size_t j = 0; j < all.size(); ++j)
      SATLAB_CUDA(cudaMemcpyAsync(&at[j], d1.as<uint32_t>(size_t(all[j].y) * size_t(w) + size_t(all[j].x)), 4,
                                  cudaMemcpyDeviceToHost, s), ctx);
    SATLAB_CUDA(cudaStreamSynchronize(s), ctx);
    return at;
  });
  if (std::none_of(wc.begin(), wc.end(), [](const Click& c) { return !c.background; })) {  // as the CPU
    SATLAB_CUDA(cudaMemsetAsync(a.alpha, 0, N * 4, s), ctx);
    if (a.label) SATLAB_CUDA(cudaMemsetAsync(a.label, 0, n, s), ctx);
    if (a.flood) *a.flood = false;
    if (a.note) *a.note = "every subject click was taken back by a later background click: nothing is selected";
    return;
  }
  SATLAB_CUDA(cudaMemcpyAsync(clicks.as<void>(), wc.data(), wc.size() * sizeof(Click), cudaMemcpyHostToDevice, s), ctx);

  phase("reach");
  fill_kernel<<<blocks(n), kThreads, 0, s>>>(d1.as<uint32_t>(), int(n), kGeoInf);
  SATLAB_LAUNCHED("fill_kernel", ctx);
  set_clicks_kernel<<<1, 64, 0, s>>>(d1.as<uint32_t>(), w, clicks.as<Click>(), int(wc.size()), nullptr);
  SATLAB_LAUNCHED("set_clicks_kernel", ctx);
  geodesic_passes_gpu(d1.as<uint32_t>(), w, h, ch.as<uint32_t>(), cv.as<uint32_t>(), p.iterations, s);

  phase("models");
  SATLAB_CUDA(cudaMemsetAsync(hist.as<void>(), 0, (2 * kBins + 1) * 4, s), ctx);
  samples_kernel<<<grid, kThreads, 0, s>>>(rgb.as<uint8_t>(), d1.as<uint32_t>(), w, h, edge, clicks.as<Click>(),
                                           int(wc.size()), model_radius_cells(p, w, h), hist.as<uint32_t>(),
                                           hist.as<uint32_t>(kBins), seed.as<uint8_t>(), hist.as<uint32_t>(2 * kBins));
  SATLAB_LAUNCHED("samples_kernel", ctx);
  std::vector<uint32_t> hh(2 * kBins + 1);
  SATLAB_CUDA(cudaMemcpyAsync(hh.data(), hist.as<void>(), hh.size() * 4, cudaMemcpyDeviceToHost, s), ctx);
  SATLAB_CUDA(cudaStreamSynchronize(s), ctx);
  const bool flood = hh[2 * kBins] == 0;

  phase("label");
  if (flood) {
    label_kernel<<<blocks(n), kThreads, 0, s>>>(d1.as<uint32_t>(), nullptr, edge, int(n), label.as<uint8_t>());
    SATLAB_LAUNCHED("label_kernel flood", ctx);
  } else {
    const SelectModels m = select_models(std::vector<uint32_t>(hh.begin(), hh.begin() + kBins),
                                         std::vector<uint32_t>(hh.begin() + kBins, hh.begin() + 2 * kBins),
                                         p.likelihood_weight);
    std::vector<uint32_t> table(m.subject);
    table.insert(table.end(), m.background.begin(), m.background.end());
    SATLAB_CUDA(cudaMemcpyAsync(costs.as<void>(), table.data(), table.size() * 4, cudaMemcpyHostToDevice, s), ctx);
    soft_seeds_kernel<<<blocks(n), kThreads, 0, s>>>(rgb.as<uint8_t>(), seed.as<uint8_t>(), int(n), costs.as<uint32_t>(),
                                                      costs.as<uint32_t>(kBins), d1.as<uint32_t>(), d2.as<uint32_t>());
    SATLAB_LAUNCHED("soft_seeds_kernel", ctx);
    set_clicks_kernel<<<1, 64, 0, s>>>(d1.as<uint32_t>(), w, clicks.as<Click>(), int(wc.size()), nullptr);
    SATLAB_LAUNCHED("set_clicks_kernel", ctx);
    geodesic_passes_gpu(d1.as<uint32_t>(), w, h, ch.as<uint32_t>(), cv.as<uint32_t>(), p.iterations, s);
    geodesic_passes_gpu(d2.as<uint32_t>(), w, h, ch.as<uint32_t>(), cv.as<uint32_t>(), p.iterations, s);
    label_kernel<<<blocks(n), kThreads, 0, s>>>(d1.as<uint32_t>(), d2.as<uint32_t>(), 0, int(n), label.as<uint8_t>());
    SATLAB_LAUNCHED("label_kernel", ctx);
  }
  // The regions connected to a subject click.
  connect_costs_kernel<<<grid, kThreads, 0, s>>>(label.as<uint8_t>(), w, h, ch.as<uint32_t>(), cv.as<uint32_t>());
  SATLAB_LAUNCHED("connect_costs_kernel", ctx);
  fill_kernel<<<blocks(n), kThreads, 0, s>>>(d1.as<uint32_t>(), int(n), kGeoInf);
  SATLAB_LAUNCHED("fill_kernel", ctx);
  set_clicks_kernel<<<1, 64, 0, s>>>(d1.as<uint32_t>(), w, clicks.as<Click>(), int(wc.size()), label.as<uint8_t>());
  SATLAB_LAUNCHED("set_clicks_kernel", ctx);
  geodesic_passes_gpu(d1.as<uint32_t>(), w, h, ch.as<uint32_t>(), cv.as<uint32_t>(), 2 * p.iterations, s);
  uint8_t* out_label = a.label ? a.label : label.as<uint8_t>();
  reached_kernel<<<blocks(n), kThreads, 0, s>>>(d1.as<uint32_t>(), int(n), out_label);
  SATLAB_LAUNCHED("reached_kernel", ctx);

  phase("matte");
  const int r = matte_radius(p, sc);
  Scratch pm(N * 4, s), mask(N, s), guide(N * 12, s), q(N * 4, s), sat(N * 4, s);
  const dim3 full(blocks(size_t(W)), unsigned(H));
  full_label_kernel<<<full, kThreads, 0, s>>>(out_label, static_cast<const uchar4*>(a.image), W, H, sc, w,
                                             pm.as<float>(), mask.as<uint8_t>(), guide.as<float>());
  SATLAB_LAUNCHED("full_label_kernel", ctx);
  SatArgs sa;
  sa.in = mask.as<void>(), sa.out = sat.as<void>(), sa.width = W, sa.height = H, sa.channels = 1;
  sa.dtype = DType::U8, sa.stream = s;
  sat_lookback_2d(sa);
  GuidedDeviceArgs g;
  g.guide = guide.as<float>(), g.guide_channels = 3, g.p = pm.as<float>(), g.q = q.as<float>();
  g.width = W, g.height = H, g.params = GuidedParams{r, p.matte_eps, false}, g.stream = s;
  g.offsets_out = a.guided_offsets;
  guided_filter(g);
  matte_kernel<<<full, kThreads, 0, s>>>(sat.as<uint32_t>(), pm.as<float>(), q.as<float>(), W, H, r, a.alpha);
  SATLAB_LAUNCHED("matte_kernel", ctx);
  if (a.flood) *a.flood = flood;
  if (a.note) {
    *a.note = "";
    if (flood) {  // as the CPU's notes (core/select.cpp)
      std::vector<uint8_t> l(n);
      SATLAB_CUDA(cudaMemcpyAsync(l.data(), out_label, n, cudaMemcpyDeviceToHost, s), ctx);
      SATLAB_CUDA(cudaStreamSynchronize(s), ctx);
      const bool all = std::all_of(l.begin(), l.end(), [](uint8_t v) { return v != 0; });
      *a.note = all ? "no edge around the click: the whole image is selected"
                    : "no background beyond an edge at the frame: the click's region up to its edges is selected";
    }
  }
}

}  // namespace satlab::gpu::select_detail
