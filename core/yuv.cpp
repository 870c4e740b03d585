#include "core/yuv.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace satlab {

void rgba_to_yuv420(const ImageRGBA8& rgba, Yuv420& out, int threads) {
  const int w = rgba.width, h = rgba.height;
  if (out.width != w || out.height != h) out = Yuv420(w, h);
  const int cw = out.chroma_width();
  parallel_for(
      0, out.chroma_height(),
      [&](long c0, long c1) {
        for (int cy = int(c0); cy < int(c1); ++cy)
          for (int cx = 0; cx < cw; ++cx) {
            int r = 0, g = 0, b = 0, n = 0;
            for (int y = 2 * cy; y < 2 * cy + 2 && y < h; ++y)
              for (int x = 2 * cx; x < 2 * cx + 2 && x < w; ++x) {
                const uint8_t* p = rgba.px(x, y);
                out.y[size_t(y) * size_t(w) + size_t(x)] = yuv::luma(p[0], p[1], p[2]);
                r += p[0], g += p[1], b += p[2], ++n;
              }
            out.u[size_t(cy) * size_t(cw) + size_t(cx)] = yuv::chroma_b(r, g, b, n);
            out.v[size_t(cy) * size_t(cw) + size_t(cx)] = yuv::chroma_r(r, g, b, n);
          }
      },
      threads);
}

namespace yuv {

InCoeffs in_coeffs(Matrix m, bool full, int bits) {
  if (bits < 8 || bits > 16) throw Error("yuv: " + std::to_string(bits) + " bits a sample (8..16)");
  const double kr = m == Matrix::Bt709 ? 0.2126 : m == Matrix::Bt2020 ? 0.2627 : 0.299;
  const double kb = m == Matrix::Bt709 ? 0.0722 : m == Matrix::Bt2020 ? 0.0593 : 0.114;
  const double kg = 1.0 - kr - kb;
  InCoeffs k;
  k.bits = bits;
  const int up = bits - 8;
  const double max = double((1 << bits) - 1);
  k.y_off = full ? 0 : 16 << up;
  k.c_off = 1 << (bits - 1);
  const double y_range = full ? max : double(219 << up), c_range = full ? max : double(224 << up);
  const double s = 65536.0 * 255.0;
  k.cy = int(std::lround(s / y_range));
  k.crv = int(std::lround(s * 2.0 * (1.0 - kr) / c_range));
  k.cbu = int(std::lround(s * 2.0 * (1.0 - kb) / c_range));
  k.cgu = int(std::lround(s * 2.0 * kb * (1.0 - kb) / kg / c_range));
  k.cgv = int(std::lround(s * 2.0 * kr * (1.0 - kr) / kg / c_range));
  return k;
}

}  // namespace yuv

void yuv420sp_to_rgba(const Yuv420SP& in, const yuv::InCoeffs& k, int rotation, ImageRGBA8& out, int threads) {
  const int w = in.width, h = in.height;
  const bool side = rotation == 90 || rotation == 270;
  const int ow = side ? h : w, oh = side ? w : h;
  if (out.width != ow || out.height != oh) out = ImageRGBA8(ow, oh);
  auto sample = [&](const uint8_t* row, int i) {
    return in.bytes == 2 ? int(reinterpret_cast<const uint16_t*>(row)[i] >> in.shift) : int(row[i]);
  };
  parallel_for(
      0, oh,
      [&](long y0, long y1) {
        for (int oy = int(y0); oy < int(y1); ++oy)
          for (int ox = 0; ox < ow; ++ox) {
            uint8_t* p = out.px(ox, oy);
            yuv::pixel_rgb(in, k, rotation, ox, oy, sample, p);
            p[3] = 255;
          }
      },
      threads);
}

}  // namespace satlab
