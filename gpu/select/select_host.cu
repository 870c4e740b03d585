// Host side of the GPU selector: its registry variant, the upload-run-download entry, the check against
// core's reference and the timed runs of `satlab bench depth`.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/guided_filter.hpp"
#include "gpu/check.hpp"
#include "gpu/device.hpp"
#include "gpu/host_timing.hpp"
#include "gpu/sat/sat_host.hpp"
#include "gpu/select/select_gpu.hpp"
#include "gpu/select/select_run.hpp"

namespace satlab::gpu {
namespace {

const Variant& select_variant(const std::string& name) {
  for (const Variant& v : variants())
    if (v.family == Family::Select && v.name == name) return v;
  throw Error("unknown selector '" + name + "'");
}

struct Run {
  Selection sel;
  float offsets[4] = {0, 0, 0, 0};
};

Run run_select(const ImageRGBA8& image, const std::vector<SelectClick>& clicks, const SelectParams& p) {
  if (!probe().available) throw Error(probe().reason);
  validate(p);
  const int W = image.width, H = image.height;
  if (W < 1 || H < 1) throw Error("select: empty image");
  const size_t N = image.pixels();
  const int sc = select_scale(W, H, p.work_side);
  const int w = (W + sc - 1) / sc, h = (H + sc - 1) / sc;
  const size_t n = size_t(w) * size_t(h);
  const std::string ctx = "select " + std::to_string(W) + "x" + std::to_string(H);
  DeviceBuffer di(N * 4, ctx), da(N * 4, ctx), dl(n, ctx), doff(16, ctx);
  SATLAB_CUDA(cudaMemcpy(di.p, image.data.data(), N * 4, cudaMemcpyHostToDevice), ctx);
  SATLAB_CUDA(cudaMemset(da.p, 0xA5, N * 4), ctx);  // poison: a finite value no matte holds
  SATLAB_CUDA(cudaMemset(dl.p, 0xA5, n), ctx);
  Run r;
  SelectArgs a;
  a.image = di.p, a.width = W, a.height = H, a.clicks = &clicks, a.params = &p;
  a.alpha = da.f(), a.label = static_cast<uint8_t*>(dl.p), a.flood = &r.sel.flood, a.note = &r.sel.note;
  a.guided_offsets = static_cast<float*>(doff.p);
  select_variant("geodesic").select(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), ctx);
  r.sel.width = W, r.sel.height = H, r.sel.scale = sc, r.sel.work_width = w, r.sel.work_height = h;
  r.sel.alpha = ImageF(W, H, 1);
  r.sel.label.resize(n);
  SATLAB_CUDA(cudaMemcpy(r.sel.alpha.data.data(), da.p, N * 4, cudaMemcpyDeviceToHost), ctx);
  SATLAB_CUDA(cudaMemcpy(r.sel.label.data(), dl.p, n, cudaMemcpyDeviceToHost), ctx);
  SATLAB_CUDA(cudaMemcpy(r.offsets, doff.p, 16, cudaMemcpyDeviceToHost), ctx);
  return r;
}

}  // namespace

std::vector<Variant> select_variants() {
  std::vector<Variant> out;
  for (const Selector& f : selectors()) {
    Variant v;
    v.name = f.name;
    v.family = Family::Select;
    v.label = f.label;
    v.source = f.source;
    v.dtypes = {DType::RGBA8};
    // The minimum: the image read twice (working image, guide) and the matte written.
    v.bytes = [](size_t n, DType) { return double(n) * 12.0; };
    v.refuses = [](size_t, DType t) -> std::string { return t == DType::RGBA8 ? "" : "RGBA8 images only"; };
    v.select = select_detail::select_geodesic;
    out.push_back(std::move(v));
  }
  return out;
}

Selection select_subject_gpu(const ImageRGBA8& image, const std::vector<SelectClick>& clicks, const SelectParams& p) {
  return run_select(image, clicks, p).sel;
}

std::string check_select(const ImageRGBA8& image, const std::vector<SelectClick>& clicks, const SelectParams& p,
                         std::string* note) {
  const Run g = run_select(image, clicks, p);
  const Selection c = select_subject_cpu(image, clicks, p);
  if (g.sel.label != c.label) {
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < c.label.size(); ++k)
      if (g.sel.label[k] != c.label[k] && bad++ == 0) first = k;
    return "label differs at " + std::to_string(bad) + " of " + std::to_string(c.label.size()) + " cells, first (" +
           std::to_string(first % size_t(c.work_width)) + ", " + std::to_string(first / size_t(c.work_width)) + ")";
  }
  if (g.sel.flood != c.flood || g.sel.note != c.note) return "note differs: '" + g.sel.note + "' vs '" + c.note + "'";
  const ImageF m = label_full(c);
  const int r = matte_radius(p, c.scale);
  const std::vector<uint8_t> band = matte_band(m, r);
  ImageF guide(image.width, image.height, 3);
  for (size_t k = 0; k < image.pixels(); ++k)
    for (int ch = 0; ch < 3; ++ch) guide.data[k * 3 + size_t(ch)] = float(image.data[k * 4 + size_t(ch)]) / 255.f;
  GuidedOffsets off;
  off.guide = {g.offsets[0], g.offsets[1], g.offsets[2]}, off.p = g.offsets[3];
  // The CPU's band tiles centre on 0.5 rather than the GPU's offsets: a float64 rounding apart, and the
  // clamp only brings the two closer.
  // Where the float SATs' analytic bound is looser (it grows with the image: their error bound passes eps
  // from a few hundred thousand pixels on), the stated bound: one level of an 8-bit matte. Measured on an
  // H200: 1.2e-3 at worst at 2053x1031 (the float SATs span the whole image; the CPU's tiles do not).
  constexpr double kStatedBound = 1.0 / 255;
  const double analytic = guided_filter_bound(guide, m, r, p.matte_eps, false, kFloatSatRelBound, 0, &off);
  const bool stated = !(analytic + 1e-6 <= kStatedBound);
  const double bound = stated ? kStatedBound : analytic + 1e-6;
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t k = 0; k < c.alpha.data.size(); ++k) {
    const double e = std::fabs(double(g.sel.alpha.data[k]) - double(c.alpha.data[k]));
    const bool ok = band[k] ? e <= bound : e == 0.0;
    if (!ok && bad++ == 0) first = k;
    if (e > worst || std::isnan(e)) worst = std::isnan(e) ? INFINITY : e;
  }
  if (note) {
    char b[120];
    std::snprintf(b, sizeof b, "worst alpha |gpu - cpu| %.3g, bound %.3g in the band (%s)", worst, bound,
                  stated ? "stated: the analytic one is looser here" : "the float SATs' analytic bound");
    *note = b;
  }
  if (bad) {
    char b[200];
    std::snprintf(b, sizeof b, "alpha differs at %zu pixels, first (%zu, %zu): gpu %.9g cpu %.9g (%s)", bad,
                  first % size_t(image.width), first / size_t(image.width), double(g.sel.alpha.data[first]),
                  double(c.alpha.data[first]), band[first] ? "band" : "outside the band");
    return b;
  }
  return "";
}

SelectTiming time_select(int W, int H, const SelectParams& p, int warmup, int runs) {
  if (!probe().available) throw Error(probe().reason);
  if (W <= 0 || H <= 0) throw Error("time_select: empty size");
  std::vector<SelectClick> clicks;
  const ImageRGBA8 img = select_bench_scene(W, H, &clicks);
  const size_t N = img.pixels();
  const std::string ctx = "select bench " + std::to_string(W) + "x" + std::to_string(H);
  DeviceBuffer di(N * 4, ctx), da(N * 4, ctx);
  SATLAB_CUDA(cudaMemcpy(di.p, img.data.data(), N * 4, cudaMemcpyHostToDevice), ctx);
  const Variant& v = select_variant("geodesic");
  SelectArgs a;
  a.image = di.p, a.width = W, a.height = H, a.clicks = &clicks, a.params = &p, a.alpha = da.f();
  for (int i = 0; i < warmup; ++i) v.select(a);
  SATLAB_CUDA(cudaDeviceSynchronize(), ctx + " warm-up");
  SelectTiming t;
  const int sc = select_scale(W, H, p.work_side);
  t.work_width = (W + sc - 1) / sc, t.work_height = (H + sc - 1) / sc;
  // Each run apart: it synchronises once inside (the colour models), so its span includes that round trip.
  std::vector<double> ms;
  for (int i = 0; i < std::max(runs, 1); ++i) {
    EventSet e;
    cudaEvent_t b = e.add(), en = e.add();
    SATLAB_CUDA(cudaEventRecord(b), "record");
    v.select(a);
    SATLAB_CUDA(cudaEventRecord(en), "record");
    SATLAB_CUDA(cudaEventSynchronize(en), ctx);
    ms.push_back(elapsed_ms(b, en));
  }
  t.median_ms = median_of(ms);
  t.stages = phase_medians(runs, ctx, [&](auto hook) {
    a.phase = hook;
    v.select(a);
  });
  a.phase = nullptr;
  return t;
}

}  // namespace satlab::gpu
