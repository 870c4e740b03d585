// A tiny rectified stereo pair with known disparity for the stereo tests: a randomly textured background
// plane at disparity `bg` and a textured rectangle in front of it at disparity `fg` (fg > bg). Textures
// are random per surface point (integer left-image coordinates), so the right image is the left one with
// each surface shifted by a whole number of pixels, and the truth is exact.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "core/image.hpp"

namespace satlab::test {

struct StereoPair {
  ImageRGBA8 left, right;
  std::vector<float> truth;      // left image disparity
  std::vector<uint8_t> visible;  // 1 where the left pixel is seen in the right image (not occluded)
};

inline StereoPair make_stereo_pair(int w, int h, int bg, int fg, uint32_t seed) {
  std::mt19937 rng(seed);
  // Surface textures indexed by the left-image column of the surface point (with a margin for points
  // only the right camera sees) and the row.
  const int margin = fg + 1;
  std::vector<uint8_t> tex_bg(size_t(w + 2 * margin) * size_t(h)), tex_fg(tex_bg.size());
  for (auto& v : tex_bg) v = uint8_t(rng() & 0xff);
  for (auto& v : tex_fg) v = uint8_t(rng() & 0xff);
  const int fx0 = w / 3, fx1 = w - w / 4, fy0 = h / 4, fy1 = h - h / 4;
  auto in_fg = [&](int u, int y) { return u >= fx0 && u < fx1 && y >= fy0 && y < fy1; };
  auto texel = [&](const std::vector<uint8_t>& t, int u, int y) {
    return t[size_t(y) * size_t(w + 2 * margin) + size_t(u + margin)];
  };
  auto put = [](ImageRGBA8& img, int x, int y, uint8_t v) {
    uint8_t* p = img.px(x, y);
    p[0] = v;
    p[1] = uint8_t(255 - v);
    p[2] = uint8_t(v / 2 + 64);
    p[3] = 255;
  };
  StereoPair s;
  s.left = ImageRGBA8(w, h);
  s.right = ImageRGBA8(w, h);
  s.truth.resize(size_t(w) * size_t(h));
  s.visible.resize(s.truth.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = size_t(y) * size_t(w) + size_t(x);
      const bool f = in_fg(x, y);
      put(s.left, x, y, texel(f ? tex_fg : tex_bg, x, y));
      s.truth[i] = float(f ? fg : bg);
      // The right pixel x shows the foreground point u = x + fg if there is one, else the background u = x +
      // bg.
      put(s.right, x, y, in_fg(x + fg, y) ? texel(tex_fg, x + fg, y) : texel(tex_bg, x + bg, y));
      const int xr = x - (f ? fg : bg);
      s.visible[i] = xr >= 0 && (f || !in_fg(xr + fg, y));
    }
  return s;
}

}  // namespace satlab::test
