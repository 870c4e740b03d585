// Host image types. Pixels are row-major, tightly packed, top row first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace satlab {

// 8-bit RGBA, 4 bytes per pixel.
struct ImageRGBA8 {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> data;  // width * height * 4

  ImageRGBA8() = default;
  ImageRGBA8(int w, int h) : width(w), height(h), data(size_t(w) * size_t(h) * 4, 0) {}
  size_t pixels() const { return size_t(width) * size_t(height); }
  bool empty() const { return width <= 0 || height <= 0; }
  uint8_t* px(int x, int y) { return data.data() + (size_t(y) * size_t(width) + size_t(x)) * 4; }
  const uint8_t* px(int x, int y) const { return data.data() + (size_t(y) * size_t(width) + size_t(x)) * 4; }
};

// Float image with 1..4 interleaved channels (depth maps have 1, HDR colour has 4).
struct ImageF {
  int width = 0;
  int height = 0;
  int channels = 1;
  std::vector<float> data;  // width * height * channels

  ImageF() = default;
  ImageF(int w, int h, int c = 1) : width(w), height(h), channels(c), data(size_t(w) * size_t(h) * size_t(c), 0.f) {}
  size_t pixels() const { return size_t(width) * size_t(height); }
  bool empty() const { return width <= 0 || height <= 0; }
  float& at(int x, int y, int c = 0) { return data[(size_t(y) * size_t(width) + size_t(x)) * size_t(channels) + size_t(c)]; }
  float at(int x, int y, int c = 0) const {
    return data[(size_t(y) * size_t(width) + size_t(x)) * size_t(channels) + size_t(c)];
  }
};

// Pixels [x0, x1) x [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  bool operator==(const PixelRect& o) const { return x0 == o.x0 && y0 == o.y0 && x1 == o.x1 && y1 == o.y1; }
  bool operator!=(const PixelRect& o) const { return !(*this == o); }
};

}  // namespace satlab
