// app/depth_refine.hpp (built with the CLI sources; the GUI links them too).
#include "app/depth_refine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.hpp"
#include "gpu/depth/guided_filter.hpp"
#include "gpu/device.hpp"

namespace satlab {

ImageF guide_from_rgba8(const ImageRGBA8& image) {
  ImageF g(image.width, image.height, 3);
  for (size_t i = 0; i < image.pixels(); ++i)
    for (int c = 0; c < 3; ++c)
      g.data[i * 3 + size_t(c)] = float(image.data[i * 4 + size_t(c)]) * (1.0f / 255.0f);
  return g;
}

RefineResult refine_depth(const ImageF& guide, const ImageF& depth, const GuidedParams& g,
                          const std::string& backend) {
  if (backend != "auto" && backend != "cpu" && backend != "gpu") throw Error("unknown backend " + backend);
  RefineResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const bool gpu_ok = gpu::probe().available;
  if (backend == "gpu" && !gpu_ok) throw Error("the GPU backend is not available: " + gpu::probe().reason);
  if (backend != "cpu" && gpu_ok) {
    r.depth = gpu::guided_filter_gpu(guide, depth, g).q;
    r.backend = "gpu";
  } else {
    if (backend == "auto") r.note = gpu::probe().reason;
    r.depth = guided_filter(guide, depth, g);
    r.backend = "cpu";
  }
  for (float& v : r.depth.data) {
    if (!std::isfinite(v)) throw Error("guided filter: a non-finite output (is the depth finite?)");
    v = std::clamp(v, 0.f, 1.f);
  }
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace satlab
