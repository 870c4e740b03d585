#include "app/gui/view_images.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab::gui {

ImageRGBA8 log_sat_image(const ImageRGBA8& image, bool luminance) {
  const int nc = luminance ? 1 : 3;
  ImageRGBA8 out(image.width, image.height);
  if (image.empty()) return out;
  // The values to sum, then core's multi-threaded float64 SAT of them.
  ImageF values(image.width, image.height, nc);
  const long n = long(image.pixels());
  parallel_for(0, n, [&](long i0, long i1) {
    for (long i = i0; i < i1; ++i) {
      const uint8_t* p = image.data.data() + size_t(i) * 4;
      float* v = values.data.data() + size_t(i) * size_t(nc);
      if (luminance)
        v[0] = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
      else
        v[0] = p[0], v[1] = p[1], v[2] = p[2];
    }
  });
  std::vector<double> sat;
  sat_float(values, sat);
  // A SAT never decreases along x and y: its first entry is the smallest, the last the largest. The log
  // range between them maps to 0..1.
  std::vector<double> lo(static_cast<size_t>(nc)), range(static_cast<size_t>(nc));
  for (size_t c = 0; c < size_t(nc); ++c) {
    lo[c] = std::log1p(sat[c]);
    range[c] = std::log1p(sat[(image.pixels() - 1) * size_t(nc) + c]) - lo[c];
  }
  auto scaled = [&](size_t i, size_t c) {
    return range[c] > 0 ? (std::log1p(sat[i * size_t(nc) + c]) - lo[c]) / range[c] : 0.0;
  };
  parallel_for(0, n, [&](long i0, long i1) {
    for (size_t i = size_t(i0); i < size_t(i1); ++i) {
      uint8_t* o = out.data.data() + i * 4;
      if (luminance) {  // 16 bits, high byte in R and B, low byte in G
        const long v = std::lround(65535.0 * scaled(i, 0));
        o[0] = o[2] = uint8_t(v >> 8);
        o[1] = uint8_t(v & 255);
      } else {
        for (size_t c = 0; c < 3; ++c) o[c] = uint8_t(std::lround(255.0 * scaled(i, c)));
      }
      o[3] = 255;
    }
  });
  return out;
}

Difference difference(const ImageRGBA8& a, const ImageRGBA8& b) {
  if (a.width != b.width || a.height != b.height)
    throw Error("cannot compare a " + std::to_string(a.width) + "x" + std::to_string(a.height) +
                " result with a " + std::to_string(b.width) + "x" + std::to_string(b.height) + " reference");
  Difference d;
  d.levels = ImageF(a.width, a.height);
  for (size_t i = 0; i < a.pixels(); ++i) {
    int m = 0;
    for (size_t c = 0; c < 3; ++c) m = std::max(m, std::abs(int(a.data[i * 4 + c]) - int(b.data[i * 4 + c])));
    d.levels.data[i] = float(m);
    d.max = std::max(d.max, m);
    d.differing += m > 0;
  }
  return d;
}

ImageF depth_on_scale_of(const ImageF& depth, const ImageF& scale) {
  if (scale.empty()) throw Error("depth_on_scale_of: no depth to take the scale from");
  if (depth.channels != 1 || scale.channels != 1) throw Error("depth_on_scale_of: depth must have 1 channel");
  const MinMax mm = minmax_reduce(scale.data.data(), scale.data.size());
  const float lo = mm.min, range = mm.max - mm.min;
  ImageF out(depth.width, depth.height);
  parallel_for(0, long(depth.data.size()), [&](long b, long e) {
    for (size_t i = size_t(b); i < size_t(e); ++i) {  // the same float expression as normalise_depth's
      const float d = range > 0.f ? (depth.data[i] - lo) / range : 0.f;
      out.data[i] = std::min(std::max(d, 0.f), 1.f);  // NaN (a hole) stays NaN, as in the depth view
    }
  });
  return out;
}

}  // namespace satlab::gui
