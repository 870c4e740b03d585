#include "app/ops/depth_refine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app/ops/backend_choice.hpp"
#include "core/error.hpp"
#include "gpu/depth/guided_filter_gpu.hpp"
#include "gpu/refine/refine_gpu.hpp"

namespace satlab {
namespace {

// The guide: the image's RGB as floats in [0,1] (sRGB values as stored), 3 channels.
ImageF guide_from_rgba8(const ImageRGBA8& image) {
  ImageF g(image.width, image.height, 3);
  for (size_t i = 0; i < image.pixels(); ++i)
    for (int c = 0; c < 3; ++c)
      g.data[i * 3 + size_t(c)] = float(image.data[i * 4 + size_t(c)]) * (1.0f / 255.0f);
  return g;
}

// The guided filter with parameters `g` on the depth resampled bilinearly to the image (missing samples:
// the mean of the rest), clamped to the input's range, as core's `guided` does with its defaults; on the
// GPU where `gpu`.
ImageF guided_refine(const ImageRGBA8& image, const ImageF& depth, const GuidedParams& g, bool gpu) {
  validate(g);
  ImageF d = resample_bilinear(depth, image.width, image.height);
  double sum = 0;
  size_t n = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : depth.data)
    if (std::isfinite(v)) sum += v, ++n, lo = std::min(lo, v), hi = std::max(hi, v);
  if (n == 0) throw Error("refine: the depth has no finite value");
  for (float& v : d.data)
    if (!std::isfinite(v)) v = float(sum / double(n));
  const ImageF guide = guide_from_rgba8(image);
  ImageF q = gpu ? gpu::guided_filter_gpu(guide, d, g).q : guided_filter(guide, d, g);
  for (float& v : q.data) {
    if (!std::isfinite(v)) throw Error("guided filter: a non-finite output");
    v = std::clamp(v, lo, hi);
  }
  return q;
}

}  // namespace

std::string RefinedDepth::summary() const {
  if (backend.empty()) return "refine " + refiner;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "refine %s (%s, %.1f ms)", refiner.c_str(), backend.c_str(), ms);
  return buf;
}

std::string resolved_refiner(const std::string& choice, DepthOrigin origin, const ImageRGBA8& image,
                             const ImageF& depth) {
  const bool lower = depth.width < image.width || depth.height < image.height;
  return resolve_refiner(choice, origin, lower);
}

RefinedDepth refine_for_image(const ImageRGBA8& image, const ImageF& depth, const ImageF* confidence,
                              const std::string& choice, DepthOrigin origin, const std::string& backend,
                              const GuidedParams* guided) {
  const BackendChoice where = choose_backend(backend);
  if (image.empty() || depth.empty()) throw Error("refine: no image or no depth");
  RefinedDepth r;
  r.refiner = resolved_refiner(choice, origin, image, depth);
  if (r.refiner == "none" && depth.width == image.width && depth.height == image.height) {
    r.depth = depth;  // nothing to do
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const bool gpu_ok = where.gpu;
  const RefineInput in{&image, &depth, confidence};
  if (r.refiner == "guided" && guided) {  // parameters of its own: the guided filter itself
    r.depth = guided_refine(image, depth, *guided, gpu_ok);
    r.backend = gpu_ok ? "gpu" : "cpu";
  } else if (gpu_ok && r.refiner != "none") {  // none is a bilinear resampling: not worth the transfers
    r.depth = gpu::refine_gpu(r.refiner, in);
    r.backend = "gpu";
  } else {
    r.depth = refine_cpu(r.refiner, in);
    r.backend = "cpu";
    if (r.refiner != "none") r.note = where.why_cpu;
  }
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace satlab
