// Bilinear resampling of a width x height grid from an iw x ih one (pixel centres aligned, edges clamped):
// put(x, y, sample) for every output pixel, sample(get) mixing get(sx, sy) at the four source pixels. One
// formula for depth (core/refine.cpp's resample_bilinear, which the GPU's `none` refiner reproduces) and
// images (io::resample_image).
#pragma once
#include <algorithm>

namespace satlab {

template <class Put>
void bilinear(int iw, int ih, int width, int height, const Put& put) {
  const float sx = float(iw) / float(width), sy = float(ih) / float(height);
  for (int y = 0; y < height; ++y) {
    const float fy = std::min(std::max((float(y) + 0.5f) * sy - 0.5f, 0.f), float(ih - 1));
    const int y0 = int(fy), y1 = std::min(y0 + 1, ih - 1);
    const float ty = fy - float(y0);
    for (int x = 0; x < width; ++x) {
      const float fx = std::min(std::max((float(x) + 0.5f) * sx - 0.5f, 0.f), float(iw - 1));
      const int x0 = int(fx), x1 = std::min(x0 + 1, iw - 1);
      const float tx = fx - float(x0);
      put(x, y, [&](const auto& get) {
        const float top = get(x0, y0) * (1 - tx) + get(x1, y0) * tx;
        const float bot = get(x0, y1) * (1 - tx) + get(x1, y1) * tx;
        return top * (1 - ty) + bot * ty;
      });
    }
  }
}

}  // namespace satlab
