// RGBA8 (full-range sRGB, alpha ignored) to 8-bit Y'CbCr 4:2:0 with BT.709's matrix in limited range, what
// satlab's clip writer hands H.264 and HEVC encoders (and states in the stream: BT.709, limited). Integer
// arithmetic in 16-bit fixed point, one source for the CPU reference and the GPU kernel (gpu/convert), so
// the two agree bit for bit. Chroma: the 2 x 2 block's mean RGB (the pixels that exist at an odd edge),
// converted once. Planes: Y width x height; Cb and Cr ceil(width/2) x ceil(height/2), rows packed.
#pragma once
#include <cstdint>
#include <vector>

#include "core/hd.hpp"
#include "core/image.hpp"

namespace satlab {

namespace yuv {

// Y' = 16 + 219/255 (0.2126 R + 0.7152 G + 0.0722 B), rounded; the weights' sum is 219/255 * 65536.
SATLAB_HD uint8_t luma(int r, int g, int b) { return uint8_t(16 + ((11966 * r + 40254 * g + 4064 * b + 32768) >> 16)); }
// Cb, Cr = 128 + 224/255 (B - Y) / 1.8556, (R - Y) / 1.5748 of the block's RGB sums over n pixels (1..4):
// the weights sum to 0, so the mean is the sum over n in the same fixed point.
SATLAB_HD uint8_t chroma_b(int r, int g, int b, int n) {
  const int v = -6596 * r - 22189 * g + 28785 * b;
  return uint8_t(128 + (v + 32768 * n) / (65536 * n) - ((v + 32768 * n) % (65536 * n) < 0 ? 1 : 0));
}
SATLAB_HD uint8_t chroma_r(int r, int g, int b, int n) {
  const int v = 28784 * r - 26145 * g - 2639 * b;
  return uint8_t(128 + (v + 32768 * n) / (65536 * n) - ((v + 32768 * n) % (65536 * n) < 0 ? 1 : 0));
}

}  // namespace yuv

struct Yuv420 {
  int width = 0, height = 0;
  std::vector<uint8_t> y, u, v;
  Yuv420() = default;
  Yuv420(int w, int h)
      : width(w), height(h), y(size_t(w) * size_t(h)), u(size_t((w + 1) / 2) * size_t((h + 1) / 2)), v(u.size()) {}
  int chroma_width() const { return (width + 1) / 2; }
  int chroma_height() const { return (height + 1) / 2; }
};

// `rgba` into `out` (made its size where it is not); rows split over `threads` (<= 0: all).
void rgba_to_yuv420(const ImageRGBA8& rgba, Yuv420& out, int threads = 0);

}  // namespace satlab
