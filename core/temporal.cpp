#include "core/temporal.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace satlab {

void TemporalFilter::apply(ImageF& depth, const ImageRGBA8& image, int threads) {
  if (depth.empty() || depth.channels != 1) throw Error("temporal filter: need a 1-channel depth map");
  if (image.width != depth.width || image.height != depth.height)
    throw Error("temporal filter: the depth and the frame differ in size");
  const size_t n = depth.pixels();
  if (running_.width != depth.width || running_.height != depth.height) {  // the first frame
    running_ = depth;
    prev_.resize(n * 3);
    float lo = INFINITY, hi = -INFINITY;
    for (float v : depth.data)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    span_ = hi > lo ? hi - lo : 1.f;
  } else {
    const float ds = p_.depth_sigma * span_, depth_s2 = ds * ds, colour_s2 = p_.colour_sigma * p_.colour_sigma;
    const float h = p_.history;
    parallel_for(0, long(n), [&](long b, long e) {
      for (long j = b; j < e; ++j) {
        const size_t i = size_t(j);
        running_.data[i] = temporal::step(running_.data[i], depth.data[i], image.data.data() + i * 4, prev_.data() + i * 3,
                                          depth_s2, colour_s2, h);
      }
    }, threads);
    depth.data = running_.data;
  }
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) prev_[i * 3 + size_t(k)] = image.data[i * 4 + size_t(k)];
}

const std::vector<std::string>& temporal_filter_names() {
  static const std::vector<std::string> names = {"off", "gated"};
  return names;
}

}  // namespace satlab
